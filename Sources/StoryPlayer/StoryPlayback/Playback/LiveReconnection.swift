import Foundation
import StoryMedia

/// A live source's reconnects over one play: when its connection drops or its data stops, it is
/// opened again, at most `timeouts.retries` times, each try announced (traced as `reconnect`)
/// and made after a bounded backoff. The tries bound an outage, not the play: a source that has
/// played `renewAfter` seconds since it last came back (new pictures or sound, `delivered()`,
/// over that span) has them all again, so a publisher that restarts every few minutes of a
/// recording of hours is taken back each time, and one back for a few seconds when its server
/// restarts is taken back too; one that flaps (drops again within seconds of each return), or
/// opens and then sends nothing, is given up on. One policy for a live item's decode thread
/// (`DecodeThread`) and a room participant's sound thread (`ParticipantSound`), so the two
/// cannot drift apart.
struct LiveReconnection {
    /// What came of the tries after a drop.
    enum Outcome<Connection> {
        /// A try opened the source again.
        case reopened(Connection)
        /// The play was stopped while waiting or opening: say nothing more.
        case stopped
        /// No try worked, or none was left: the source is lost, with the last reason as the
        /// cause.
        case lost(MediaError)
    }

    /// The tries made so far in this outage.
    private(set) var tries = 0
    let limit: Int
    /// How long a source must have played since its last return for its next drop to start
    /// with every try again. 5 s: longer than a flapping source's return (an open, a probe and a
    /// drop within a second or two); it was 30 s, and the record soak's participant that came
    /// back after a 30-s absence (on its last try) was lost for good, without a try, when the
    /// ingest restarted 9 s later.
    let renewAfter: Duration
    /// When a try last opened the source again.
    private var cameBack: ContinuousClock.Instant?
    /// When the source last delivered something new: an open alone is not a return (a
    /// connection that opens and stalls drops after `timeouts.read`, longer than `renewAfter`,
    /// and would otherwise be tried for ever).
    private var lastDelivery: ContinuousClock.Instant?
    /// The wait before each try (`delay(attempt:)`); a test's own, so it need not sleep.
    private let backoff: @Sendable (_ attempt: Int) -> Double
    /// The time now; a test's own, so it need not wait `renewAfter`.
    private let now: @Sendable () -> ContinuousClock.Instant

    static let defaultRenewAfter = Duration.seconds(5)

    init(limit: Int, renewAfter: Duration = LiveReconnection.defaultRenewAfter,
         now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
         backoff: @escaping @Sendable (_ attempt: Int) -> Double = LiveReconnection.delay(attempt:)) {
        self.limit = limit
        self.renewAfter = renewAfter
        self.now = now
        self.backoff = backoff
    }

    /// How long a live source waits before try `attempt`: 0.25 s, doubling, at most 2 s, so a
    /// publisher back within a second is caught at once and a dead one is not hammered.
    static func delay(attempt: Int) -> Double {
        min(0.25 * pow(2, Double(attempt - 1)), 2)
    }

    /// Notes that the source delivered a new picture or block of sound, now.
    mutating func delivered() {
        lastDelivery = now()
    }

    /// Whether the source played `renewAfter` since it last came back: its next outage starts
    /// with every try again.
    private var playedSinceReturn: Bool {
        guard let cameBack, let lastDelivery else { return false }
        return lastDelivery - cameBack >= renewAfter
    }

    /// Tries to open the source again after `failure`, until a try works or the tries run out.
    /// Before each: `announce(attempt, reason)` (false when the play is stopping), then the
    /// backoff, slept on `gate` so a stop ends it at once.
    mutating func reopen<Connection>(after failure: any Error & Sendable, gate: InterruptGate,
                                     announce: (_ attempt: Int, _ reason: String) -> Bool,
                                     open: () throws(MediaError) -> Connection) -> Outcome<Connection> {
        var reason = failure
        if playedSinceReturn { tries = 0 }
        while tries < limit {
            tries += 1
            guard announce(tries, "\(reason)"), gate.sleep(seconds: backoff(tries)) else { return .stopped }
            do throws(MediaError) {
                let connection = try open()
                cameBack = now()
                return .reopened(connection)
            } catch {
                reason = error
            }
        }
        // A stop that cut the last try short is the stop, not a lost source.
        if gate.isStopped { return .stopped }
        return .lost(MediaError(.read, "live stream lost after \(tries) reconnects", cause: reason))
    }
}
