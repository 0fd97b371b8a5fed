import Foundation
import StoryMedia
import StoryModel

/// The HTTP half of WHEP (RFC 9725): the offer POSTed to the endpoint, the answer and the
/// session's URL (`Location`) read from its 201, and that URL DELETEd when the play ends.
///
/// Written over FFmpeg's `tcp` and `tls` protocols (StoryMedia's `NetworkConnection`) rather than
/// its `http`: FFmpeg 5.1's HTTP client keeps no `Location` of a 201 (its `location` option
/// stays the URL asked for; measured), and without it a session cannot be ended, so the server
/// sends on until its ICE consent runs out. One request a connection (`Connection: close`); a
/// response is read to its `Content-Length`, its last chunk, or the server's close, 1 MB at most.
enum WHEPSignalling {
    /// What the server answered.
    struct Response {
        var status: Int
        var reason: String
        var headers: [String: String]
        var body: String
    }

    /// The most a response may weigh.
    static let responseLimit = 1 << 20

    /// Sends `method` of `url` with `body` (as `contentType`), under `gate`; the response whatever
    /// its status. Throws when the server cannot be reached or answers no HTTP.
    static func exchange(_ method: String, _ url: String, body: String = "", contentType: String? = nil,
                         timeout: Double, gate: InterruptGate) throws(MediaError) -> Response {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = parsed.host, !host.isEmpty else {
            throw MediaError(.open, "cannot reach the WHEP endpoint \(url)", cause: "not an http:// or https:// URL")
        }
        let port = parsed.port ?? (scheme == "https" ? 443 : 80)
        let bracketed = host.contains(":") ? "[\(host)]" : host
        // As the URL writes it: escapes and a trailing slash kept.
        var path = parsed.path(percentEncoded: true)
        if path.isEmpty { path = "/" }
        if let query = parsed.query { path += "?" + query }
        let payload = Array(body.utf8)
        var request = "\(method) \(path) HTTP/1.1\r\nHost: \(bracketed)\(parsed.port.map { ":\($0)" } ?? "")\r\n"
            + "User-Agent: live-stories\r\nAccept: application/sdp\r\nConnection: close\r\n"
        if let contentType { request += "Content-Type: \(contentType)\r\n" }
        if method != "GET" { request += "Content-Length: \(payload.count)\r\n" }
        request += "\r\n"
        let connection = try NetworkConnection(scheme == "https" ? "tls://\(bracketed):\(port)" : "tcp://\(bracketed):\(port)",
                                               peer: "the WHEP endpoint", timeout: timeout, gate: gate)
        try connection.write(Array(request.utf8) + payload)
        return try parse(connection.readAll(limit: responseLimit, isWhole: isWhole), url: url)
    }

    /// The status line, headers and body of a response.
    static func parse(_ bytes: [UInt8], url: String) throws(MediaError) -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.indices.dropLast(3).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw MediaError(.open, "the WHEP endpoint \(url) answered no HTTP", cause: "no end of headers in \(bytes.count) bytes")
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = head.first?.split(separator: " ", maxSplits: 2).map(String.init) ?? []
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/"), let status = Int(statusLine[1]) else {
            throw MediaError(.open, "the WHEP endpoint \(url) answered no HTTP", cause: head.first ?? "")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[(end + 4)...])
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = dechunk(body)
        } else if let length = headers["content-length"].flatMap(Int.init), length >= 0, length < body.count {
            body = Array(body[..<length])
        }
        return Response(status: status, reason: statusLine.count > 2 ? statusLine[2] : "", headers: headers,
                        body: String(decoding: body, as: UTF8.self))
    }

    /// A chunked body's chunks joined (RFC 9112, 7.1); what a cut-off body holds so far.
    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            guard let lineEnd = bytes[i...].firstIndex(of: 10) else { break }
            let sizeText = String(decoding: bytes[i..<lineEnd], as: UTF8.self).split(separator: ";").first?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard let size = Int(sizeText, radix: 16), size > 0 else { break }
            let start = lineEnd + 1
            // A size from the network may be anything: past the bytes there are, it ends them.
            let stop = size >= bytes.count - start ? bytes.count : start + size
            out += bytes[start..<stop]
            i = stop + 2
        }
        return out
    }

    /// Whether `bytes` hold a whole response: headers, and a body as long as its
    /// `Content-Length` or ending with the last chunk. One without either ends with the connection.
    static func isWhole(_ bytes: [UInt8]) -> Bool {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4, let end = bytes.indices.dropLast(3).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            return false
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
        let bodyCount = bytes.count - end - 4
        for line in head.components(separatedBy: "\r\n").dropFirst() {
            if line.hasPrefix("content-length:"), let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) {
                return bodyCount >= length
            }
            if line.hasPrefix("transfer-encoding:"), line.contains("chunked") {
                let tail: [UInt8] = Array("0\r\n\r\n".utf8)
                return bodyCount >= tail.count && Array(bytes.suffix(tail.count)) == tail
            }
        }
        // No body framing: a status without a body (204, 304) is whole at its headers.
        return head.hasPrefix("http/1.1 204") || head.hasPrefix("http/1.0 204") || head.hasPrefix("http/1.1 304")
    }

    /// `response`'s `Location`, resolved against `url`.
    static func location(of response: Response, from url: String) -> String? {
        guard let location = response.headers["location"], !location.isEmpty else { return nil }
        return URL(string: location, relativeTo: URL(string: url))?.absoluteString
    }
}
