import Foundation
import StoryMedia
import Synchronization

/// How far a play's decode thread decodes: up to the first picture past the last media time the
/// play will show, when the render foresees it (`StoryRenderer.foreseePlayEnds`), else to the end.
///
/// A decode thread runs ahead of the one on screen (its queues: five pictures, up to sixteen for
/// a recorded play decoding ahead, `DecodeLimits.decodeAheadBytes`). At a play's stop those
/// were decoded, and most converted, for nothing: at 720x1280 and 5 Mbit/s, four pictures are
/// about 26 ms of CPU, spent in the middle of the turn that stops the play, when
/// both cores are busy with two stories and the cube. Decoding only up to the first picture
/// past the play's last shown time (the one the player looks at to know its current picture is
/// the last) leaves the pictures shown unchanged, bit for bit.
///
/// The foresight is a plan without the players' word on when items end, so it can be wrong
/// only by a play ending earlier than foreseen. Should a player ever need a picture past the
/// reach all the same, it lifts the reach (`lift()`): the thread decodes on, and that frame waits
/// one picture's decode, as the first frame of a play does. Nothing is shown differently.
final class DecodeReach: Sendable {
    /// The media time past which no further picture is decoded (infinity: no limit).
    private let limit = Mutex<Double>(.infinity)
    /// Wakes a waiting decode thread: the reach moved, or the play stopped.
    private let wake = DispatchSemaphore(value: 0)
    /// The time of the newest picture decoded, as the thread last said before decoding on.
    private let newest = Mutex<Double?>(nil)

    /// How often a waiting thread looks at its gate, should a wake be missed.
    private static let poll = 0.1

    init() {}

    /// Decodes no picture after the first one whose time is past `mediaTime`.
    func limit(to mediaTime: Double) {
        limit.withLock { $0 = mediaTime }
        wake.signal()
    }

    /// Decodes on to the end (the player needs more than was foreseen).
    func lift() { limit(to: .infinity) }

    /// The limit now.
    var mediaTime: Double { limit.withLock { $0 } }

    /// Wakes the decode thread if it waits (its play stopped: it sees its gate closed).
    func release() { wake.signal() }

    /// The time of the newest picture the thread has decoded (nil before the first), as of
    /// its last look at the reach: while it waits, the last picture it will decode.
    var decodedThrough: Double? { newest.withLock { $0 } }

    /// Waits while the last picture decoded (`lastTime`; nil before the first) lies past the
    /// reach. Returns false once `gate` has stopped.
    func waitForRoom(after lastTime: Double?, gate: InterruptGate) -> Bool {
        newest.withLock { $0 = lastTime }
        while !gate.isStopped {
            guard let lastTime, !PictureTime.isShown(lastTime, by: mediaTime) else { return true }
            _ = wake.wait(timeout: .now() + DecodeReach.poll)
        }
        return false
    }
}
