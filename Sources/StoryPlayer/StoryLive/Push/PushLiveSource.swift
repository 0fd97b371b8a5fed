import StoryMedia
import StoryModel

/// A pushed live stream (RTMP, SRT, MPEG-TS over HTTP or UDP): pictures come as they are made,
/// read by FFmpeg's demuxer with the live options (`FormatContext.open`). It never says it has
/// ended: a clean end is a publisher gone, and the play reconnects.
package final class PushLiveSource: LiveSource {
    package let source: MediaSource
    package var kind: LiveSourceKind { .push }

    init(_ source: MediaSource) {
        self.source = source
    }

    /// Its URL's scheme ("rtmp", "srt", "udp", "http"), or "file" for a local stream.
    package var protocolName: String { MediaSource.scheme(of: source.location)?.lowercased() ?? "file" }

    package func openInput(limits: DecodeLimits, gate: InterruptGate, reception: SourceReception) throws(MediaError) -> LiveInput {
        LiveInput(format: try FormatContext.open(source, limits: limits, gate: gate, isLive: true,
                                                 demuxerOptions: LiveSources.demuxerOptions, reception: reception))
    }
}
