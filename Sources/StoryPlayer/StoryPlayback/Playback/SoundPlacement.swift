import StoryMedia
import StoryModel

/// Where a participant's sound goes on the room's clock (`ParticipantSound`), set for each
/// connection by its first block:
/// - live, realtime clock: where it arrived, plus the playout delay. Its timestamps say
///   nothing of the room's clock, which ran while the source opened; placed by them, the
///   sound lay behind what the room mixed and was never heard.
/// - live, virtual clock: at the room's start (the room waited for it to open), and after
///   a reconnect where the last connection's sound ended. Its timestamps are the
///   publisher's (an HLS stream's run on from its first segment), so placed by them the
///   sound lay seconds ahead of the room, later the older the stream: an audit's loud
///   participant was never heard, or heard from 4.4 s in one run of three.
/// - recorded: at its timestamps, and after a reconnect where the last sound ended.
struct SoundPlacement {
    let isLive: Bool
    /// The room waits for its sources (the virtual clock).
    let waits: Bool
    let roomStart: ContinuousClock.Instant
    /// What this connection's timestamps are moved by; nil until its first block.
    private var shift: Double?
    /// Where the last block placed ended, on the room's clock.
    private var soundEnd: Double?

    init(isLive: Bool, waits: Bool, roomStart: ContinuousClock.Instant) {
        self.isLive = isLive
        self.waits = waits
        self.roomStart = roomStart
    }

    /// Moves `block` onto the room's clock.
    mutating func place(_ block: inout SoundBlock) {
        if shift == nil { shift = firstShift(of: block.time) }
        block.time += shift ?? 0
        soundEnd = block.time + Double(block.samples.count / 2) / Double(ItemAudio.rate)
    }

    /// A new connection: its first block is placed afresh.
    mutating func reconnected() { shift = nil }

    private func firstShift(of time: Double) -> Double {
        if isLive && !waits {
            let arrived = (ContinuousClock.now - roomStart).seconds + ParticipantSound.playoutDelay
            return max(arrived, soundEnd ?? -.infinity) - time
        } else if isLive {
            return (soundEnd ?? 0) - time
        }
        return (soundEnd ?? time) - time
    }
}
