/// A shard's decoding forward, on the decode thread: of the pictures from the keyframe it
/// seeked to up to the media time its player starts at, only the newest is shown (the player
/// passes the others over at once, `ItemPlayer.advance`, which takes every picture up to 1e-9 s
/// past its media time and keeps the last). So the others are passed over here, before the
/// convert thread spends a swscale on each; the player receives what it would have kept.
struct ForwardPass {
    /// The media time the player starts at, with the player's slack.
    private let until: Double
    /// The newest picture so far at or before `until`, not yet queued.
    private var held: PushBacklog.Picture?
    /// Whether a picture past `until` came: from then on every picture is queued as decoded.
    private(set) var isDone: Bool
    /// Pictures passed over, and the decode CPU seconds they took.
    private(set) var passedOver = 0
    private(set) var passedOverSeconds = 0.0

    /// A pass to `startAt`; none (every picture queued) when `startAt` is nil.
    init(startAt: Double?) {
        until = (startAt ?? 0) + 1e-9
        isDone = startAt == nil
    }

    /// A picture decoded, in presentation order, that took `seconds` of CPU to decode: the
    /// pictures to queue now, oldest first.
    mutating func take(_ picture: PushBacklog.Picture, seconds: Double) -> [PushBacklog.Picture] {
        guard !isDone else { return [picture] }
        guard picture.time <= until else {
            isDone = true
            return (held.map { [$0] } ?? []) + [picture]
        }
        var picture = picture
        if let older = held {
            passedOver += 1
            passedOverSeconds += heldSeconds
            // The first picture carries the first-frame spans, whichever is shown.
            if picture.spans == nil { picture.spans = older.spans }
        }
        held = picture
        heldSeconds = seconds
        return []
    }

    private var heldSeconds = 0.0

    /// The picture still held when the data ends: it is the item's last, and is shown.
    mutating func flush() -> [PushBacklog.Picture] {
        defer { held = nil }
        isDone = true
        return held.map { [$0] } ?? []
    }
}
