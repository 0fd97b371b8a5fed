import StoryMedia
import StoryModel

/// A WebRTC source played through WHEP (`FormatContext.openWHEP`): its session's tracks, read
/// by a demuxer as MPEG-TS. Its pictures come as they are made, as a pushed stream's do.
package final class WHEPLiveSource: LiveSource {
    package let source: MediaSource
    package var kind: LiveSourceKind { .push }

    init(_ source: MediaSource) {
        self.source = source
    }

    package var protocolName: String { "whep" }

    package func openInput(limits: DecodeLimits, gate: InterruptGate, reception: SourceReception) throws(MediaError) -> LiveInput {
        LiveInput(format: try FormatContext.openWHEP(source, limits: limits, gate: gate, reception: reception))
    }

    package func openSoundInput(limits: DecodeLimits, gate: InterruptGate) throws(MediaError) -> FormatContext {
        try FormatContext.openWHEP(source, limits: limits, gate: gate, reception: nil)
    }
}
