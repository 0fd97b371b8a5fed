import StoryBase
import StoryMedia

/// The pictures a pushed live source (RTMP, SRT, MPEG-TS) had already sent when its player began
/// to read: the ones read while the streams were analysed, and whatever the network held. They
/// come out of the decoder in a burst, each older than the one after it, and the live clock,
/// anchored at the first picture, would stay that far behind the publisher for the whole play;
/// the offset from arrival cannot see it, since pictures "arrive" as fast as the player takes
/// them. So the decode thread passes over the burst and starts at its newest picture.
///
/// Dropping FFmpeg's buffered packets instead (`fflags nobuffer`) also drops the keyframe read
/// while analysing: a stream with a long GOP then shows nothing until the next one.
struct PushBacklog {
    struct Picture {
        let time: Double
        let picture: DecodedPicture
        var spans: FirstFrameSpans?
    }

    private(set) var isDraining: Bool
    private var held: (picture: Picture, at: Double)?
    private var firstTime: Double?
    /// Pictures passed over in the burst.
    private(set) var passedOver = 0

    /// The most of a stream's start passed over (seconds of its time): beyond that the source is
    /// sending faster than real time, and that is not a backlog.
    static let maxSeconds = 3.0

    init(isPushed: Bool) {
        isDraining = isPushed
    }

    /// A picture decoded at monotonic `now`: the pictures to queue now, oldest first. A picture
    /// that came in less than half its interval after the one before is part of the burst.
    mutating func take(_ picture: Picture, now: Double) -> [Picture] {
        guard isDraining else { return [picture] }
        guard let (last, at) = held else {
            firstTime = picture.time
            held = (picture, now)
            return []
        }
        let interval = max(picture.time - last.time, 0.01)
        if now - at < 0.5 * interval, picture.time - (firstTime ?? picture.time) < PushBacklog.maxSeconds {
            var newest = picture
            newest.spans = newest.spans ?? last.spans
            held = (newest, now)
            passedOver += 1
            return []
        }
        isDraining = false
        held = nil
        var next = picture
        if last.spans != nil { next.spans = nil }
        return [last, next]
    }

    /// What is still held, when the stream ends or the connection is lost.
    mutating func flush() -> [Picture] {
        defer { held = nil; isDraining = false }
        return held.map { [$0.picture] } ?? []
    }
}
