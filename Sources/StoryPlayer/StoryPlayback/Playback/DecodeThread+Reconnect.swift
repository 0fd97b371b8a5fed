import Compositor
import StoryBase
import StoryLive
import StoryMedia
import StoryModel

/// The end of a connection: a recorded play ends or fails there; a live one ends if its source
/// says it has, else opens the source again (`LiveReconnection`).
extension DecodeThread.Worker {
    /// Recorded items do not reconnect: a network error fails them, a clean end ends them, and
    /// so does a local file's read error after it played something (`playedFirst`).
    func endRecorded(failure: MediaError?, playedFirst: Bool) {
        if let failure, source.isRemote || !playedFirst {
            queue.put(.failed(failure))
        } else {
            queue.put(.end)
        }
    }

    /// Whether a live source says it has ended: a playlist that says so (`#EXT-X-ENDLIST`, or a
    /// DASH manifest that turned static), through its watch, its input, or read again where
    /// nothing watches it (`LiveSource.saysEnded(unwatched:)`).
    func hasEnded(_ decoder: MediaDecoder) -> Bool {
        edge.hasEnded || decoder.inputEnded
            || live?.saysEnded(unwatched: gate, timeout: limits.timeouts.read) == true
    }

    /// Opens a live source again after `failure` (nil: its data stopped): a live stream has no
    /// natural end, so whatever stopped it, it reconnects. False once the play is over: stopped,
    /// or the source lost (said to the player).
    func reconnect(_ connection: inout Connection, after failure: MediaError?, _ carried: inout Carried) -> Bool {
        let reason: any Error & Sendable = failure
            ?? ErrorText(live?.stallReason(after: connection.decoder) ?? "the stream ended")
        let outcome = carried.reconnection.reopen(after: reason, gate: gate) { attempt, reason in
            queue.put(.reconnect(attempt: attempt, reason: reason))
        } open: { () throws(MediaError) in
            connection.watch?.retire(waitingUpTo: 0.5)
            connection.watch = nil
            let (reopened, reopenedWatch) = try open(epoch: edge.epoch + 1)
            connection.watch = reopenedWatch
            return reopened
        }
        switch outcome {
        case .reopened(let reopened):
            close(connection.decoder)
            connection.decoder = reopened
            carried.timeline.reconnected(frameRate: reopened.frameRate)
            return true
        case .stopped:
            return false
        case .lost(let lost):
            queue.put(.failed(lost))
            return false
        }
    }
}
