import StoryMedia
import StoryModel

/// Where a participant's sound goes on the room's clock (`ParticipantSound`), set for each
/// connection by its blocks:
/// - live, realtime clock: where it arrived, plus the playout delay. Its timestamps say
///   nothing of the room's clock, which ran while the source opened; placed by them, the
///   sound lay behind what the room mixed and was never heard. The first blocks a connection
///   reads are not the live edge, though: opening it (FFmpeg's probe waits for a picture to
///   know the video's size) held back 0.6-0.9 s of sound, read all at once after it. Placed
///   where the first of them arrived, the sound was 0.63-0.90 s behind the pictures at the far
///   end of a recording (`bench/record.sh`). So for a pushed source, whose sound comes block by
///   block as it is made, a block that arrives nearer the edge than any before it (less time
///   between its timestamp and its arrival) moves the connection's sound there: what was held
///   back is passed over, once, at the start. Not for one that comes in segments (HLS, DASH):
///   each segment's newest block is the nearest its edge, and placed by it, the rest of every
///   segment would lie before its own arrival, never heard.
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
    /// The source's sound comes block by block as it is made (a pushed source), not a segment
    /// at a time: the block nearest its edge says where the live sound is.
    let followsEdge: Bool
    /// What this connection's timestamps are moved by; nil until its first block.
    private var shift: Double?
    /// Where the last block placed ended, on the room's clock.
    private var soundEnd: Double?
    /// Where the last connection's sound ended: a new one's is not placed before it.
    private var lastConnectionEnd: Double?
    /// Blocks in a row that would have been placed before their own arrival (never heard).
    private var blocksBehind = 0

    /// What `place` did with a block.
    enum Placed: Equatable {
        /// It follows the blocks before, or stands after a gap.
        case inTurn
        /// The connection's sound moved nearer its edge, or on after it fell behind: the block
        /// replaces what the room holds from its time on.
        case moved
    }

    /// How much nearer the edge a block must come than the ones before to move the sound: more
    /// than the network's jitter, so that an hour of it does not cut the sound again and again.
    static let nearerEdge = 0.02
    /// Blocks in a row placed before their own arrival after which the sound is moved on to
    /// where they arrive (10 AAC blocks, about 0.2 s): a publisher whose clock runs slow, a
    /// send queue that has built up, timestamps that jumped back. Fewer are the network's
    /// jitter, whose sound is lost but whose place is kept.
    static let blocksBehindToMove = 10

    init(isLive: Bool, waits: Bool, followsEdge: Bool) {
        self.isLive = isLive
        self.waits = waits
        self.followsEdge = followsEdge
    }

    /// Moves `block`, which the thread read `arrival` seconds after the room came on screen,
    /// onto the room's clock, `delay` after its arrival for a live source on the realtime clock.
    mutating func place(_ block: inout SoundBlock, arrival: Double, delay: Double) -> Placed {
        var placed = Placed.inTurn
        if isLive && !waits {
            placed = followArrival(of: block.time, arrival: arrival, delay: delay)
        } else if shift == nil {
            shift = isLive ? (soundEnd ?? 0) - block.time : (soundEnd ?? block.time) - block.time
        }
        block.time += shift ?? 0
        soundEnd = block.time + Double(block.samples.count / 2) / Double(ItemAudio.rate)
        return placed
    }

    /// A live source on the realtime clock: the first block sets the shift at its arrival; for
    /// a pushed source, a block nearer the edge, or the last of `blocksBehindToMove` in a row
    /// that would come too late to be heard, moves it there. A timestamp that is not a number
    /// places nothing anew (the room's buffer starts again at such a block).
    private mutating func followArrival(of time: Double, arrival: Double, delay: Double) -> Placed {
        let atArrival = max(arrival + delay, lastConnectionEnd ?? -.infinity) - time
        guard atArrival.isFinite else { return .inTurn }
        guard let shift else {
            shift = atArrival
            return .inTurn
        }
        guard followsEdge else { return .inTurn }
        blocksBehind = atArrival - shift > delay ? blocksBehind + 1 : 0
        guard atArrival < shift - SoundPlacement.nearerEdge || blocksBehind >= SoundPlacement.blocksBehindToMove else { return .inTurn }
        self.shift = atArrival
        blocksBehind = 0
        return .moved
    }

    /// A new connection: its blocks are placed afresh, after the last connection's sound.
    mutating func reconnected() {
        shift = nil
        blocksBehind = 0
        lastConnectionEnd = soundEnd
    }
}
