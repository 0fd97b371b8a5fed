internal import CFFmpeg
import Foundation
import StoryModel
import Synchronization

/// Owns an `AVIOContext` opened for reading by `avio_open2`; closes it with `avio_closep`.
///
/// How a feed page comes over HTTP(S): through FFmpeg's own protocols, which every story
/// source already uses, rather than Foundation's URLSession. Linking FoundationNetworking (and
/// with it libcurl and eight more libraries) cost every run of the tool 4-8 ms of start-up.
package final class FeedPageStream {
    private var pointer: UnsafeMutablePointer<AVIOContext>?
    /// FFmpeg's interrupt callback holds the gate unretained; the stream holds it strongly.
    private let gate: InterruptGate

    /// Streams opened and not yet closed, process-wide (see `FormatContext.alive`).
    static let alive = Atomic<Int>(0)

    /// The protocols a page may come through: HTTP(S), and the proxy FFmpeg's TLS goes through
    /// when `http_proxy` is set.
    static let protocols = ["http", "https", "tcp", "tls", "httpproxy"]

    /// `avio_open2` of `url` for reading, under `gate`, FFmpeg's socket timeout set a second past
    /// `timeout` in case the gate is not polled.
    package init(url: String, timeout: Double, gate: InterruptGate) throws(MediaError) {
        FFmpegLogging.configureOnce()
        self.gate = gate
        var callback = gate.callback
        var options = FFmpegDictionary([
            "protocol_whitelist": FeedPageStream.protocols.joined(separator: ","),
            "rw_timeout": String(InterruptGate.nanoseconds(timeout + 1) / 1000),
            // A page is JSON from an API: ask for it as a plain GET (no `Range:` or shoutcast
            // `Icy-MetaData:` header, which FFmpeg sends for media by default), and check the
            // server's certificate and name, as URLSession did.
            "seekable": "0", "icy": "0", "user_agent": "live-stories", "tls_verify": "1",
        ])
        var context: UnsafeMutablePointer<AVIOContext>?
        let status = FFmpegFaults.injected(.openPage)
            ?? options.withUnsafeDictionary { avio_open2(&context, url, AVIO_FLAG_READ, &callback, $0) }
        guard status >= 0, let context else { throw MediaError(.open, "cannot open \(url)", averror: status) }
        pointer = context
        FeedPageStream.alive.add(1, ordering: .relaxed)
    }

    /// Everything up to the end of the stream (`avio_read`), refusing more than `limit` bytes.
    package func readAll(limit: Int) throws(MediaError) -> Data {
        guard let pointer else { preconditionFailure("reading after close()") }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = FFmpegFaults.injected(.readPage)
                ?? buffer.withUnsafeMutableBufferPointer { avio_read(pointer, $0.baseAddress, Int32($0.count)) }
            if count == FFmpegError.endOfFile || count == 0 { return data }
            guard count > 0 else { throw MediaError(.read, "cannot read", averror: count) }
            data.append(contentsOf: buffer[..<Int(count)])
            guard data.count <= limit else { throw MediaError(.read, "more than \(limit / 1_000_000) MB") }
        }
    }

    /// Up to `limit` bytes, as soon as any have come (`avio_read_partial`): a body still being
    /// written (chunked transfer) is read as it arrives. Empty at the end of the body.
    package func readSome(limit: Int) throws(MediaError) -> [UInt8] {
        guard let pointer else { preconditionFailure("reading after close()") }
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = FFmpegFaults.injected(.readPage)
            ?? buffer.withUnsafeMutableBufferPointer { avio_read_partial(pointer, $0.baseAddress, Int32($0.count)) }
        if count == FFmpegError.endOfFile || count == 0 { return [] }
        guard count > 0 else { throw MediaError(.read, "cannot read", averror: count) }
        buffer.removeSubrange(Int(count)...)
        return buffer
    }

    /// `avio_closep`: closes the connection now.
    package func close() {
        if pointer != nil {
            avio_closep(&pointer)
            FeedPageStream.alive.subtract(1, ordering: .relaxed)
        }
    }

    deinit { close() }
}

extension FeedPageStream {
    /// The body of an `http:` or `https:` URL, within `timeout` seconds for the whole of it.
    package static func download(_ url: String, timeout: Double, limit: Int) throws(MediaError) -> Data {
        let gate = InterruptGate()
        gate.arm(seconds: timeout)
        defer { gate.disarm() }
        do {
            let stream = try FeedPageStream(url: url, timeout: timeout, gate: gate)
            defer { stream.close() }
            return try stream.readAll(limit: limit)
        } catch {
            // Only a call the gate interrupted ("Immediate exit requested") waited too long;
            // FFmpeg's own socket timeout, a second later, keeps its own reason.
            if error.ffmpegError?.code == cffmpeg_averror_exit(), gate.reason == .timedOut {
                throw MediaError(.timeout, "no answer within \(ObjectReader.format(timeout)) s")
            }
            throw error
        }
    }
}
