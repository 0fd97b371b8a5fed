import StoryMedia

/// One connection of a push to its ingest: a muxer (FLV or MPEG-TS) writing to the URL, every
/// blocking call under the push's gate, armed for `stallSeconds`, so a write the ingest never
/// takes gives up instead of holding the push's thread.
final class PushConnection {
    private let muxer: MuxerContext
    private let gate: InterruptGate
    private let stallSeconds: Double
    private var indexes: [LiveStreams.Kind: Int32] = [:]
    /// The last write failed because the gate's deadline passed: the ingest stopped taking data.
    private var stalled = false

    init(url: String, format: String, streams: LiveStreams, gate: InterruptGate, stallSeconds: Double) throws(MediaError) {
        self.gate = gate
        self.stallSeconds = stallSeconds
        muxer = try MuxerContext(format: format, path: url, gate: gate)
        indexes = try muxer.addStreams(streams, for: url)
        gate.arm(seconds: stallSeconds)
        defer { gate.disarm() }
        // rw_timeout: the protocol's own limit on one read or write (microseconds), beside the gate.
        var status = muxer.open(url, options: ["rw_timeout": String(Int(stallSeconds * 1e6))])
        guard status >= 0 else { throw failure("cannot connect to \(url)", status) }
        // A live FLV has no length to write back at the end (it cannot seek on a connection).
        status = muxer.writeHeader(options: format == "flv" ? ["flvflags": "no_duration_filesize"] : [:])
        guard status >= 0 else { throw failure("cannot start the stream to \(url)", status) }
    }

    /// What a failed call says: a wait the gate cut short is the ingest's silence, said as such
    /// rather than as FFmpeg's "Immediate exit requested".
    func failure(_ message: String, _ status: Int32) -> MediaError {
        if stalled || gate.reason == .timedOut {
            return MediaError(.timeout, message, cause: "the ingest did not answer for \(Int(stallSeconds)) s")
        }
        return MediaError(.open, message, averror: status)
    }

    /// Sends a packet at once (not held for interleaving: the sound of a live story reaches the
    /// encoder later than its pictures, and the pictures must not wait for it); a negative
    /// AVERROR code when the ingest is gone or stalled.
    func write(_ packet: Packet, stream: LiveStreams.Kind, streams: LiveStreams) -> Int32 {
        guard let index = indexes[stream], let base = streams.parameters(stream)?.timeBase else { return 0 }
        gate.arm(seconds: stallSeconds)
        defer { gate.disarm() }
        let status = muxer.write(packet, from: base, stream: index, interleaved: false)
        if status >= 0 { muxer.flush() } else { stalled = gate.reason == .timedOut }
        return status
    }

    /// The stream's end (`av_write_trailer`), sent before the connection closes.
    func finish() {
        gate.arm(seconds: stallSeconds)
        defer { gate.disarm() }
        _ = muxer.writeTrailer()
        _ = muxer.closeFile()
    }
}
