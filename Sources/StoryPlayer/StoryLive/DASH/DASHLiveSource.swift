import StoryMedia
import StoryModel

/// A live DASH manifest. A remote one is read by this program's segment reader
/// (`DASHSegmentFeed`: see there for why not FFmpeg's demuxer), its sound apart
/// (`DASHSound`), and its manifest watched beside it; a local one by FFmpeg's demuxer.
package final class DASHLiveSource: LiveSource {
    package let source: MediaSource
    package var kind: LiveSourceKind { .dash }
    /// What this connection's opening found; nil before, and for a local manifest.
    private var opening: DASHOpening.Facts?

    init(_ source: MediaSource) {
        self.source = source
    }

    package var protocolName: String { opening?.isChunked == true ? "ll-dash" : "dash" }
    package var suggestedTarget: Double? { opening?.suggestedTarget }
    package var timelineStart: Double? { opening?.periodStart }

    package func openInput(limits: DecodeLimits, gate: InterruptGate, reception: SourceReception) throws(MediaError) -> LiveInput {
        opening = nil
        guard source.isRemote else {
            return LiveInput(format: try FormatContext.open(source, limits: limits, gate: gate, isLive: true,
                                                            demuxerOptions: LiveSources.demuxerOptions, reception: reception))
        }
        let opened = try FormatContext.openDASH(source, limits: limits, gate: gate, reception: reception)
        opening = opened.facts
        return LiveInput(format: opened.main, sound: opened.sound)
    }

    package func watch(beside decoder: MediaDecoder, epoch: Int, edge: LiveEdge, gate: InterruptGate, timeout: Double,
                       name: String) -> PlaylistWatch? {
        guard source.isRemote else { return nil }
        return PlaylistWatch(dash: source.ffmpegURL, clockOffset: opening?.clockOffset ?? 0, edge: edge, gate: gate,
                             timeout: timeout, name: name)
    }

    /// A manifest read through this program's input that turned static (`FormatContext.inputEnded`).
    package func saysEnded(sound: ItemAudio, gate: InterruptGate, timeout: Double) -> Bool {
        sound.inputEnded
    }
}
