import Foundation
import Hummingbird

/// The answers every route builds the same way.
enum StudioResponses {
    static func bytes(_ bytes: some Sequence<UInt8>, type: String, headers extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-store"]
        headers.append(contentsOf: extra)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func json<Value: Encodable>(_ value: Value, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
        return json(String(decoding: data, as: UTF8.self), status: status)
    }

    /// A refusal, said in plain words (the security tests read the status, a person the text).
    static func refusal(_ status: HTTPResponse.Status, _ reason: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: reason + "\n")))
    }

    static func problem(_ problem: StudioProblem, status: HTTPResponse.Status = .unprocessableContent) -> Response {
        json(["problems": [problem]], status: status)
    }
}
