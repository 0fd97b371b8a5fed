import Compositor
import StoryBase
import StoryLive
import StoryMedia

/// What the player learned when its source opened.
struct MediaFacts: Sendable {
    let isStill: Bool
    /// A recorded source of sound only (`MediaDecoder.isSoundOnly`): it lasts as its sound does.
    let isSoundOnly: Bool
    /// What its play shows over the sound (`SoundOnlyStill`), once the decode thread chose it.
    var soundOnlyPicture: SoundOnlyStill.Choice?
    /// The media's own duration; nil for live streams. A playlist or manifest played live by its
    /// form (`.m3u8`, `.mpd`) that turns out to be finished (VOD) has one: FFmpeg's demuxers give
    /// a duration only for a list that says it ends.
    let duration: Double?
    let frameDuration: Double
    /// Seconds from a picture's time to the same moment of the item's sound: a phone's sound
    /// that starts before or after its pictures stays in step with them. 0 for live sources,
    /// whose sound the decode thread times itself.
    let soundOffset: Double
    /// How a live source is delivered, for the trace (`LiveSource.protocolName`); empty otherwise.
    let deliveredBy: String
    /// The target the source suggests at its opening (Low-Latency HLS's `PART-HOLD-BACK`).
    let suggestedTarget: Double?

    /// A frame's duration when the stream does not declare its rate.
    static let assumedFrameDuration = 1.0 / 30

    /// The facts of `decoder`, just opened; a live one's also from `live`, its protocol.
    init(_ decoder: MediaDecoder, isLive: Bool, live: (any LiveSource)?) {
        isStill = decoder.isStill
        isSoundOnly = decoder.isSoundOnly
        duration = isLive && live?.keepsDuration(of: decoder) != true ? nil : decoder.duration
        frameDuration = decoder.frameRate > 0 ? 1 / decoder.frameRate : MediaFacts.assumedFrameDuration
        soundOffset = isLive ? 0 : decoder.soundOffset
        deliveredBy = isLive ? live?.protocolName ?? "" : ""
        suggestedTarget = isLive ? live?.suggestedTarget : nil
    }
}

/// What a decode thread hands to its player, in order.
enum DecodedEvent: Sendable {
    case opened(MediaFacts)
    /// A picture, already converted to canvas-size RGBA, at `time` seconds of media time.
    case picture(time: Double, image: RGBAImage, spans: FirstFrameSpans?)
    /// A picture as decoded, on its way from the decode thread to the convert thread; the player
    /// never sees one.
    case decoded(time: Double, picture: DecodedPicture, spans: FirstFrameSpans?)
    /// A live connection dropped; this is reconnect try `attempt`.
    case reconnect(attempt: Int, reason: String)
    /// A live stream's timestamps jumped (a segment that starts its timestamps again, a
    /// publisher that restarted), or a new connection began (`reconnected`): pictures from here
    /// on are on time line `epoch` of the source's `LiveEdge`, and the playback clock starts
    /// again at the next one. `from` and `to` are the source's own timestamps (seconds) of the
    /// last picture before and the first after. `returnGap`, for a pushed source back after a
    /// gap (a publisher that went away and came back: a new session), is how long after the last
    /// picture before (monotonic seconds) the first after was decoded.
    case discontinuity(epoch: Int, from: Double, to: Double, reconnected: Bool, returnGap: Double?)
    /// A live stream's cadence locked or was let go (`FrameCadence`): the pictures after it are
    /// released on that cadence, or at their own timestamps.
    case cadence(FrameCadence.Change)
    /// The data ended normally (or a still image was delivered).
    case end
    /// Opening or decoding failed; nothing follows.
    case failed(MediaError)
}
