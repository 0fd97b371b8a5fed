import StoryMedia
import StoryModel

/// A live source as its protocol reads it, one folder each: `HLS/`, `DASH/`, `WHEP/`, `Push/`
/// (RTMP, SRT, MPEG-TS over HTTP or UDP). It opens the source for its decoder (`LiveOpener`),
/// keeps what the opening found (where the play starts, the target the source suggests), and
/// says what playback asks of a protocol: how the trace names it, whether its pictures come in
/// segments, how it says it has ended, what watches its edge. Nothing outside StoryLive asks
/// which protocol a source is: it asks its `LiveSource` (`LiveSources.reading`).
///
/// One per play, used by one thread at a time (the decode thread, or a participant's sound
/// thread): `prepare` and the opening set the facts of the connection being opened.
package protocol LiveSource: LiveOpener {
    var source: MediaSource { get }
    /// How its pictures come, which sets its default latency (`LiveLatency.defaultTarget`).
    var kind: LiveSourceKind { get }
    /// What is read before the decoder opens (a Low-Latency HLS playlist); nothing by default.
    func prepare(limits: DecodeLimits, gate: InterruptGate, watchGate: InterruptGate) throws(MediaError)
    /// How the trace names the delivery (`protocol`): "ll-hls", "hls", "dash", "whep", "rtmp", …
    var protocolName: String { get }
    /// The target the source suggested at its opening (`PART-HOLD-BACK`, a DASH
    /// `ServiceDescription`); nil when it said none.
    var suggestedTarget: Double? { get }
    /// Where the first picture sits on the source's own time line (a DASH period's seconds),
    /// against which its edge is measured; nil: the timestamps as the source wrote them.
    var timelineStart: Double? { get }
    /// What watches the source's edge beside its demuxer (`PlaylistWatch`), once it opened.
    func watch(beside decoder: MediaDecoder, epoch: Int, edge: LiveEdge, gate: InterruptGate, timeout: Double,
               name: String) -> PlaylistWatch?
    /// Whether the source says it ended, read again now, where no watch tells (a local playlist).
    func saysEnded(unwatched gate: InterruptGate, timeout: Double) -> Bool
    /// Whether a participant's sound, read alone (`ItemAudio`), says its source ended.
    func saysEnded(sound: ItemAudio, gate: InterruptGate, timeout: Double) -> Bool
    /// Why a connection that came to a clean end without the source saying it ended is taken
    /// for a dropped stream (`decoder`: the pictures' connection; nil for sound read alone).
    func stallReason(after decoder: MediaDecoder?) -> String
}

extension LiveSource {
    package func prepare(limits: DecodeLimits, gate: InterruptGate, watchGate: InterruptGate) throws(MediaError) {}
    package var suggestedTarget: Double? { nil }
    package var timelineStart: Double? { nil }
    package func watch(beside decoder: MediaDecoder, epoch: Int, edge: LiveEdge, gate: InterruptGate, timeout: Double,
                       name: String) -> PlaylistWatch? { nil }
    package func saysEnded(unwatched gate: InterruptGate, timeout: Double) -> Bool { false }
    package func saysEnded(sound: ItemAudio, gate: InterruptGate, timeout: Double) -> Bool { false }
    /// FFmpeg's HLS demuxer ends cleanly on a playlist that stopped changing; anything else
    /// that ends so has simply ended.
    package func stallReason(after decoder: MediaDecoder?) -> String {
        decoder?.formatName == "hls" ? LiveSources.stalledPlaylist : "the stream ended"
    }

    /// Whether pictures come a segment (or part) at a time: a reopened connection sends again
    /// what was shown, and the clock goes on from the picture that came back after a stall.
    package var comesInSegments: Bool { kind != .push }
    /// Whether pictures come as they are made (`PushBacklog`, `LiveDiscontinuity`).
    package var isPushed: Bool { kind == .push }

    /// Whether a live play's duration is the container's: FFmpeg's HLS and DASH demuxers give
    /// the window they list; a pushed stream or this program's own readers give none.
    package func keepsDuration(of decoder: MediaDecoder) -> Bool {
        ["hls", "dash"].contains(decoder.formatName)
    }

    /// The sound read alone: as any source, with the live options (`FormatContext.open`).
    package func openSoundInput(limits: DecodeLimits, gate: InterruptGate) throws(MediaError) -> FormatContext {
        try FormatContext.open(source, limits: limits, gate: gate, isLive: true, demuxerOptions: LiveSources.demuxerOptions)
    }
}

/// The one place a source's protocol is told: where to add a live protocol is a folder beside
/// `HLS/`, `DASH/`, `WHEP/` and `Push/`, and a case here.
package enum LiveSources {
    /// The `LiveSource` that reads `source`: nil for a recorded source. A WHEP source is read
    /// through its session even where it is not played live (a still render's probe), as
    /// nothing else can open it.
    package static func reading(_ source: MediaSource, isLive: Bool) -> (any LiveSource)? {
        if source.isWHEP { return WHEPLiveSource(source) }
        guard isLive else { return nil }
        return switch LiveSourceKind(source) {
        case .hls: HLSLiveSource(source)
        case .dash: DASHLiveSource(source)
        case .push: PushLiveSource(source)
        }
    }

    static let stalledPlaylist = "the playlist stopped changing (stalled)"

    /// Reloads of a live HLS playlist without a new segment after which it is stalled.
    static let stalledPlaylistReloads = 3

    /// What every live source FFmpeg demuxes is opened with. A live HLS playlist that stops
    /// changing is a stall. FFmpeg's demuxer would reload it a thousand times; after three
    /// reloads without a new segment (a target duration, then half of one each) it ends the
    /// stream instead, and the player reconnects as after a read timeout. Playing three
    /// segments behind the live edge, that is about five target durations after the playlist
    /// last changed (measured: 5.3 s at 1 s). Given to every protocol's FFmpeg opening, not
    /// HLS's alone: FFmpeg picks its demuxer by what the server sends, so a playlist at a URL
    /// without `.m3u8` (read as `Push`) is demuxed as HLS too. Other demuxers ignore it.
    static let demuxerOptions = ["m3u8_hold_counters": String(stalledPlaylistReloads)]
}
