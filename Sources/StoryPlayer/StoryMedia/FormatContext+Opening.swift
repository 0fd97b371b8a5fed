internal import CFFmpeg
import StoryModel

extension FormatContext {
    /// Opens a story source the one way every demuxer here is opened (players, audio, posters,
    /// probes): a refused source stops before FFmpeg sees it; FFmpeg may use only the source's
    /// protocols, narrowed by the storyboard; and `avformat_open_input` and
    /// `avformat_find_stream_info` run under `gate`, with the open timeout as their deadline.
    /// The context keeps `gate` alive: FFmpeg holds only an unretained pointer to it.
    /// `notesOpenings`: the URLs the demuxer opens are noted (`DemuxerOpenings`), for a live
    /// HLS source (StoryLive's `HLSLiveSource`). `demuxerOptions`: what a live protocol tells
    /// FFmpeg's demuxer besides (StoryLive's `LiveSources.demuxerOptions`).
    package static func open(_ source: MediaSource, limits: DecodeLimits, gate: InterruptGate, isLive: Bool = false,
                             demuxerOptions: [String: String] = [:], reception: SourceReception? = nil,
                             notesOpenings: Bool = false) throws(MediaError) -> FormatContext {
        let protocols = try permittedProtocols(source, limits: limits)
        var options = ["protocol_whitelist": protocols.joined(separator: ",")]
        if source.isRemote {
            // FFmpeg's own socket timeout (microseconds) backs up the interrupt callback. It
            // covers opening and reading alike, so it is the longer of the two waits: set to the
            // read timeout, it cut opens short ("Input/output error" from RTMP after 1 s) before
            // the gate's own open deadline could say what happened.
            let backstop = max(limits.timeouts.open, limits.timeouts.read) + 1
            options["rw_timeout"] = String(InterruptGate.nanoseconds(backstop) / 1000)
            // FFmpeg's TLS does not check the server's certificate unless told to: an HTTPS
            // source must come from the server it names, as a feed page must (`FeedPageStream`).
            options["tls_verify"] = "1"
        }
        if isLive {
            // A live stream is analysed for 0.1 s of its own time instead of 5 s: FLV and MPEG-TS
            // cannot say when every stream is known, so FFmpeg reads all of that time, in real
            // time. The video stream need not be among those found by then (nginx-rtmp relays a
            // publisher's sound before its first keyframe): the decoder picks it up from its
            // first packet (`VideoTrack`), so this is a matter of speed, never of finding it.
            options["analyzeduration"] = "100000"
        }
        options.merge(demuxerOptions) { _, given in given }
        gate.arm(seconds: limits.timeouts.open)
        defer { gate.disarm() }
        let format: FormatContext
        // Where a live HLS demuxer started is where the live edge is measured from, and a
        // timeout says which segment a server refused.
        let openings = notesOpenings ? DemuxerOpenings() : nil
        do {
            format = try FormatContext(url: source.ffmpegURL, name: source.description, options: options, gate: gate,
                                       openings: openings)
        } catch {
            throw explain(error, gate: gate, waiting: "opening \(source)", seconds: limits.timeouts.open,
                          timeoutDetail: openings?.refusalDetail ?? "")
        }
        reception?.reached(.answered)
        let status = format.findStreamInfo(maxPixels: limits.maxPixels)
        guard status >= 0 else {
            throw explain(MediaError(.streamInfo, "cannot read stream information", averror: status), gate: gate,
                          waiting: "reading stream information", seconds: limits.timeouts.open,
                          timeoutDetail: format.refusalDetail ?? " (the source answered, then sent no media)")
        }
        return format
    }

    /// Reads the stream information as `open` does, for a demuxer opened on an input of ours
    /// (`openDASH`).
    package func readStreamInfo(limits: DecodeLimits) throws(MediaError) {
        let status = findStreamInfo(maxPixels: limits.maxPixels)
        guard status >= 0 else { throw MediaError(.streamInfo, "cannot read stream information", averror: status) }
    }

    /// The protocols FFmpeg may use for `source`: its own, narrowed by the storyboard. A refused
    /// source, or one the storyboard leaves no protocol, stops here, before FFmpeg sees it.
    package static func permittedProtocols(_ source: MediaSource, limits: DecodeLimits) throws(MediaError) -> [String] {
        FFmpegLogging.configureOnce()
        if let refusal = source.refusal {
            throw MediaError(.open, "refused \(source.location)", cause: refusal)
        }
        let protocols = source.allowedProtocols(narrowedTo: limits.protocols)
        guard !protocols.isEmpty else {
            throw MediaError(.open, "no allowed protocol can open \(source)",
                             cause: "the storyboard's protocols exclude all of \(source.allowedProtocols.joined(separator: ", "))")
        }
        return protocols
    }

    /// Says "timed out" or "stopped" instead of FFmpeg's "Immediate exit requested" when the gate
    /// is why a call gave up.
    package static func explain(_ error: MediaError, gate: InterruptGate, waiting: String, seconds: Double,
                                    timeoutDetail: String = "") -> MediaError {
        switch gate.reason {
        case .timedOut?: MediaError(.timeout, "no answer within \(ObjectReader.format(seconds)) s \(waiting)\(timeoutDetail)")
        case .stopped?: MediaError(.interrupted, "stopped while \(waiting)")
        case nil: error
        }
    }
}
