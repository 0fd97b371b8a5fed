/// Which pictures a shard's decoding forward may leave undecoded.
///
/// A shard that starts mid-item seeks to the keyframe before the media time it starts at and
/// decodes forward; of the pictures up to that time the player shows only the newest (it passes
/// the others over at once, `ItemPlayer.advance`). A picture that no other picture refers to
/// (a non-reference B frame) and that is older than a picture already sent, itself at or before
/// that time, can never be the one shown: the decoder is told to drop it unread
/// (`AVDISCARD_NONREF` for that packet). Reference pictures are decoded whatever this says, so
/// every picture shown is decoded from the same references as in a whole render.
struct ForwardDiscard {
    /// The media time the shard's player starts at, with the player's slack (`advance` shows
    /// pictures up to 1e-9 s past the media time).
    let until: Double
    /// The newest presentation time sent so far that is at or before `until`.
    private var newestNeeded = -Double.infinity
    /// Packets sent with leave to drop them (the decoder still decodes those that are references).
    private(set) var marked = 0

    init(startAt: Double) {
        until = startAt + 1e-9
    }

    /// Whether the packet presenting at `time` (nil: unknown) may be dropped if no picture
    /// refers to it. Call once per video packet, in the order they are sent.
    mutating func mayDrop(time: Double?) -> Bool {
        guard let time, time <= until else { return false }
        if time < newestNeeded {
            marked += 1
            return true
        }
        newestNeeded = time
        return false
    }
}
