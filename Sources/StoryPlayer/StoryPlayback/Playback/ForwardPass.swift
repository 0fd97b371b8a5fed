import StoryMedia

/// A shard's decoding forward, on the decode thread: of the pictures from the keyframe it
/// seeked to up to the media time its player starts at, only the newest is shown (the player
/// passes the others over at once, `ItemPlayer.advance`, which takes every picture up to its
/// media time, with `PictureTime.slack`, and keeps the last). This counts those others and their decode CPU, for
/// the shard's `decoding_forward`.
///
/// It only counts: every picture is still queued and converted. Holding the older ones back
/// before conversion drew different bytes from the whole render's at an item's end (the demo
/// at 90x160 and 8 fps, shard 80..116, frame 87: the ended night clip's last picture, on the
/// cube's edge), which `ShardForwardTests.testAShardEndingAnItemDrawsTheWholeRendersBytes`
/// keeps; the conversions it saved were about 1 ms each, a few hundred per 8-shard render.
struct ForwardPass {
    /// The media time the player starts at, with the player's slack.
    private let until: Double
    /// Whether a picture at or before `until` came, and what it took to decode.
    private var heldSeconds: Double?
    /// Whether a picture past `until` came: from then on nothing is counted.
    private(set) var isDone: Bool
    /// Pictures the player passes over, and the decode CPU seconds they took.
    private(set) var passedOver = 0
    private(set) var passedOverSeconds = 0.0

    /// A pass to `startAt`; none (nothing counted) when `startAt` is nil.
    init(startAt: Double?) {
        until = (startAt ?? 0) + PictureTime.slack
        isDone = startAt == nil
    }

    /// A picture decoded at `time`, in presentation order, that took `seconds` of CPU to decode.
    mutating func count(time: Double, seconds: Double) {
        guard !isDone else { return }
        guard time <= until else {
            isDone = true
            return
        }
        if let older = heldSeconds {
            passedOver += 1
            passedOverSeconds += older
        }
        heldSeconds = seconds
    }
}
