import CFFmpeg
import Foundation

/// Owns an `AVIOContext` opened for reading by `avio_open2`; closes it with `avio_closep`.
///
/// How a feed page comes over HTTP(S): through FFmpeg's own protocols, which every story
/// source already uses, rather than Foundation's URLSession. Linking FoundationNetworking (and
/// with it libcurl and eight more libraries) cost every run of the tool 13 ms of start-up, more
/// than a frame's PNG.
final class ByteStream {
    private var pointer: UnsafeMutablePointer<AVIOContext>?
    /// FFmpeg's interrupt callback holds the gate unretained; the stream holds it strongly.
    private let gate: InterruptGate

    /// `avio_open2` of `url` for reading, with only `protocols`, and blocking calls under `gate`
    /// (FFmpeg's socket timeout set a second past `timeout`, in case the gate is not polled).
    init(url: String, protocols: [String], timeout: Double, gate: InterruptGate) throws(MediaError) {
        self.gate = gate
        var callback = gate.callback
        // FFmpeg's own socket timeout (microseconds) backs up the gate, as for story sources.
        var options = FFmpegDictionary(["protocol_whitelist": protocols.joined(separator: ","),
                                        "rw_timeout": String(InterruptGate.nanoseconds(timeout + 1) / 1000)])
        var context: UnsafeMutablePointer<AVIOContext>?
        let status = avio_open2(&context, url, AVIO_FLAG_READ, &callback, &options.pointer)
        guard status >= 0, let context else { throw MediaError(.open, "cannot open \(url)", averror: status) }
        pointer = context
    }

    /// Everything up to the end of the stream (`avio_read`), refusing more than `limit` bytes.
    func readAll(limit: Int) throws(MediaError) -> Data {
        guard let pointer else { preconditionFailure("reading after close()") }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { avio_read(pointer, $0.baseAddress, Int32($0.count)) }
            if count == FFmpegError.endOfFile || count == 0 { return data }
            guard count > 0 else { throw MediaError(.read, "cannot read", averror: count) }
            data.append(contentsOf: buffer[..<Int(count)])
            guard data.count <= limit else { throw MediaError(.read, "more than \(limit / 1_000_000) MB") }
        }
    }

    /// `avio_closep`: closes the connection now.
    func close() {
        if pointer != nil { avio_closep(&pointer) }
    }

    deinit { close() }
}

extension ByteStream {
    /// The body of an `http:` or `https:` URL, within `timeout` seconds for the whole of it.
    static func download(_ url: String, timeout: Double, limit: Int) throws(MediaError) -> Data {
        let gate = InterruptGate()
        gate.arm(seconds: timeout)
        defer { gate.disarm() }
        do {
            let stream = try ByteStream(url: url, protocols: ["http", "https", "tcp", "tls"], timeout: timeout, gate: gate)
            defer { stream.close() }
            return try stream.readAll(limit: limit)
        } catch {
            if gate.reason == .timedOut {
                throw MediaError(.timeout, "no answer within \(ObjectReader.format(timeout)) s")
            }
            throw error
        }
    }
}
