internal import CFFmpeg

/// Owns an `AVIOContext` opened by `avio_open2` for reading and writing a `tcp` or `tls`
/// connection; closes it with `avio_closep`. A protocol that speaks over a socket of its own
/// (StoryLive's `WHEPSignalling`, whose HTTP FFmpeg 5.1's client cannot do) reads and writes
/// through it, so the C object stays here with the other FFmpeg owners.
package final class NetworkConnection {
    private var pointer: UnsafeMutablePointer<AVIOContext>?
    /// Who is at the other end, as error messages name it ("the WHEP endpoint").
    private let peer: String

    /// Connects to `url` (`tcp://host:port` or `tls://host:port`), under `gate`.
    package init(_ url: String, peer: String, timeout: Double, gate: InterruptGate) throws(MediaError) {
        self.peer = peer
        FFmpegLogging.configureOnce()
        var callback = gate.callback
        var options = FFmpegDictionary([
            "protocol_whitelist": "tcp,tls",
            "rw_timeout": String(InterruptGate.nanoseconds(timeout + 1) / 1000),
            // The peer's certificate is checked, as every HTTPS source's is.
            "tls_verify": "1",
        ])
        var context: UnsafeMutablePointer<AVIOContext>?
        let status = options.withUnsafeDictionary { avio_open2(&context, url, AVIO_FLAG_READ_WRITE, &callback, $0) }
        guard status >= 0, let context else {
            throw MediaError(.open, "cannot reach \(peer)", averror: status)
        }
        pointer = context
    }

    /// `avio_write` and `avio_flush`.
    package func write(_ bytes: [UInt8]) throws(MediaError) {
        guard let pointer else { preconditionFailure("writing after close") }
        bytes.withUnsafeBufferPointer { avio_write(pointer, $0.baseAddress, Int32($0.count)) }
        avio_flush(pointer)
        if pointer.pointee.error < 0 {
            throw MediaError(.open, "cannot send to \(peer)", averror: pointer.pointee.error)
        }
    }

    /// `avio_read_partial` until `isWhole` says the bytes read make a whole answer, or the
    /// peer closes (a server may keep the connection open after a response, whatever the
    /// request's `Connection: close` asked); at most `limit` bytes.
    package func readAll(limit: Int, isWhole: ([UInt8]) -> Bool) throws(MediaError) -> [UInt8] {
        guard let pointer else { preconditionFailure("reading after close") }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while !isWhole(data) {
            let count = buffer.withUnsafeMutableBufferPointer { avio_read_partial(pointer, $0.baseAddress, Int32($0.count)) }
            if count == FFmpegError.endOfFile || count == 0 { return data }
            guard count > 0 else { throw MediaError(.read, "cannot read \(peer)'s answer", averror: count) }
            data += buffer[..<Int(count)]
            guard data.count <= limit else { throw MediaError(.read, "\(peer) answered more than \(limit >> 20) MB") }
        }
        return data
    }

    deinit { avio_closep(&pointer) }
}
