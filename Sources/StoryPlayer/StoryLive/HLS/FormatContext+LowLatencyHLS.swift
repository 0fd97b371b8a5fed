import Foundation
import StoryMedia
import StoryModel

/// A Low-Latency HLS playlist opened by this program's part reader (`HLSPartFeed`): its demuxer,
/// where the play starts, and the target it starts at.
struct HLSPartOpening {
    let main: FormatContext
    /// The segment the first part read belongs to, and how far into it that part starts: the
    /// playlist's edge is measured from segment starts (`SegmentLedger`).
    let start: (sequence: Int, offsetInSegment: Double)
    /// How far behind the newest part the play started (the storyboard's target, else
    /// `PART-HOLD-BACK`).
    let target: Double
}

extension FormatContext {
    /// Opens a Low-Latency HLS media playlist, `playlist` as read from `url` just before: starts
    /// at the independent part that plays `behind` seconds behind the newest (the item's
    /// `latency.target`, else the playlist's `PART-HOLD-BACK`), and reads on part by part
    /// (`HLSPartFeed`) through a demuxer that probes what the parts are (fragmented MP4, MPEG-TS).
    static func openLowLatencyHLS(_ source: MediaSource, url: String, playlist: HLSPlaylist, limits: DecodeLimits,
                                  gate: InterruptGate, reception: SourceReception?) throws(MediaError) -> HLSPartOpening {
        let protocols = try permittedProtocols(source, limits: limits)
        reception?.reached(.answered)
        let behind = limits.latency.target ?? playlist.lowLatencyTarget
            ?? LiveLatency.defaultTarget(kind: .hls, targetDuration: playlist.targetDuration, presentationDelay: nil)
        guard let start = playlist.start(behind: behind) else {
            throw MediaError(.open, "cannot open \(source)", cause: "the playlist lists no part a play can start at")
        }
        gate.arm(seconds: limits.timeouts.open)
        defer { gate.disarm() }
        let feed = HLSPartFeed(playlistURL: url, playlist: playlist, start: start.piece.position, behind: behind, gate: gate,
                               timeout: limits.timeouts.open, protocols: protocols.filter { ["http", "https"].contains($0) })
        let format: FormatContext
        do throws(MediaError) {
            format = try FormatContext(input: SegmentInput(feed: feed), name: source.description, options: FormatContext.dashOptions, gate: gate)
            try format.readStreamInfo(limits: limits)
            // The initialization section alone gives the demuxer its streams, and a feed that
            // never got a part lets the stream information be read from that: the play is open
            // only once a part (a picture's data) came. Else the play traced `opened` with no
            // part fetched, and failed later with no reason.
            guard feed.mediaPieces > 0 else {
                throw feed.failure ?? MediaError(.open, "cannot open \(source)", cause: "no part of the stream arrived")
            }
        } catch {
            // The feed's own reason first: it gave up before the gate would have, and says why.
            throw feed.failure ?? explain(error, gate: gate, waiting: "opening \(source)", seconds: limits.timeouts.open)
        }
        return HLSPartOpening(main: format, start: (start.piece.position.sequence, start.offsetInSegment), target: behind)
    }
}
