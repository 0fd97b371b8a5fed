@testable import StoryMedia
@testable import StoryPlayback
import Synchronization
import StoryPlayerTestSupport
import XCTest

/// The reconnect policy a live item and a room participant share: tries counted over an outage
/// (a source that played a while since it came back has them all again), each announced with the reason before it, the backoff, and the final failure
/// carrying the last reason.
final class LiveReconnectionTests: XCTestCase {
    func testTheBackoffDoublesFromAQuarterSecondUpToTwo() {
        XCTAssertEqual((1...6).map(LiveReconnection.delay(attempt:)), [0.25, 0.5, 1, 2, 2, 2])
    }

    func testTriesAreCountedOverThePlayAndTheLastReasonIsTheCause() {
        // Each try waits its attempt's backoff; here the waits are noted, not slept.
        let waits = WaitLog()
        var reconnection = LiveReconnection(limit: 3, backoff: { attempt in
            waits.attempts.withLock { $0.append(attempt) }
            return 0
        })
        let gate = InterruptGate()
        var announced: [String] = []
        // The first drop: one failed try, then the source is back.
        var opens = 0
        let first = reconnection.reopen(after: ErrorText("the stream ended"), gate: gate) { attempt, reason in
            announced.append("\(attempt): \(reason)")
            return true
        } open: { () throws(MediaError) -> Int in
            opens += 1
            if opens == 1 { throw MediaError(.open, "refused") }
            return 7
        }
        guard case .reopened(7) = first else { return XCTFail("\(first)") }
        XCTAssertEqual(reconnection.tries, 2)
        // The second drop has one try left, not three: a source that keeps dropping is lost.
        let second = reconnection.reopen(after: ErrorText("no data"), gate: gate) { attempt, reason in
            announced.append("\(attempt): \(reason)")
            return true
        } open: { () throws(MediaError) -> Int in
            throw MediaError(.open, "refused again")
        }
        guard case .lost(let lost) = second else { return XCTFail("\(second)") }
        XCTAssertEqual(lost.message, "live stream lost after 3 reconnects")
        XCTAssertEqual((lost.cause as? MediaError)?.message, "refused again")
        XCTAssertEqual(announced.count, 3)
        XCTAssertEqual(announced[0], "1: the stream ended")
        XCTAssertTrue(announced[1].hasPrefix("2: ") && announced[1].contains("refused"), announced[1])
        XCTAssertEqual(announced[2], "3: no data")
        XCTAssertEqual(waits.attempts.withLock { $0 }, [1, 2, 3], "a backoff before every try, by its attempt over the play")
    }

    /// A publisher that restarts every few minutes of a recording of hours is taken back every
    /// time: once the source has played `renewAfter` since its return, a drop has every try
    /// again. (Before, the third restart of the run failed its participant for good.)
    func testASourceThatPlayedAWhileSinceItCameBackHasEveryTryAgain() {
        var reconnection = LiveReconnection(limit: 1, renewAfter: .zero, backoff: { _ in 0 })
        let gate = InterruptGate()
        for drop in 1...4 {
            let outcome = reconnection.reopen(after: ErrorText("drop \(drop)"), gate: gate) { _, _ in true }
                open: { () throws(MediaError) -> Int in drop }
            guard case .reopened(drop) = outcome else { return XCTFail("drop \(drop): \(outcome)") }
            reconnection.delivered()
        }
        // Not yet played long enough (an hour): the one try was spent on the last drop.
        var flapping = LiveReconnection(limit: 1, renewAfter: .seconds(3600), backoff: { _ in 0 })
        _ = flapping.reopen(after: ErrorText("first"), gate: gate) { _, _ in true } open: { () throws(MediaError) -> Int in 1 }
        let second = flapping.reopen(after: ErrorText("second"), gate: gate) { _, _ in true } open: { () throws(MediaError) -> Int in 2 }
        guard case .lost = second else { return XCTFail("a source that flaps is given up on: \(second)") }
    }

    /// The record soak's participant: away 30 s, back on its last try, then its server
    /// restarted 9 s later. With the default `renewAfter` it has every try again; one back for
    /// a second (a flapping source), or one that opened and sent nothing, has only what its
    /// outage left.
    func testASourceBackForNineSecondsWhenItsServerRestartsIsTakenBackAgain() {
        let clock = TestClock()
        let gate = InterruptGate()
        var reconnection = LiveReconnection(limit: 3, now: { clock.now }, backoff: { _ in 0 })
        var opens = 0
        let away = reconnection.reopen(after: ErrorText("no data for 10 s"), gate: gate) { _, _ in true }
            open: { () throws(MediaError) -> Int in
                opens += 1
                if opens < 3 { throw MediaError(.open, "no answer within 8 s") }
                return opens
            }
        guard case .reopened(3) = away else { return XCTFail("back on the last try: \(away)") }
        var flapping = reconnection
        var silent = reconnection
        clock.advance(by: .seconds(9))
        reconnection.delivered()
        let restarted = reconnection.reopen(after: ErrorText("Input/output error"), gate: gate) { _, _ in true }
            open: { () throws(MediaError) -> Int in 4 }
        guard case .reopened(4) = restarted else { return XCTFail("a source back 9 s has its tries again: \(restarted)") }
        XCTAssertEqual(reconnection.tries, 1)

        // Opened again 10 s ago but nothing new since (a stalled connection drops after
        // timeouts.read): not a return, however long ago it opened.
        let stalled = silent.reopen(after: ErrorText("no data for 10 s"), gate: gate) { _, _ in true }
            open: { () throws(MediaError) -> Int in 6 }
        guard case .lost = stalled else { return XCTFail("a source that opened and sent nothing has no try left: \(stalled)") }

        clock.advance(by: .seconds(-8))
        flapping.delivered()
        let again = flapping.reopen(after: ErrorText("Input/output error"), gate: gate) { _, _ in true }
            open: { () throws(MediaError) -> Int in 5 }
        guard case .lost = again else { return XCTFail("a source back 1 s has no try left: \(again)") }
    }

    func testAStoppedPlayEndsTheTriesAtOnceWithoutAFailure() {
        var reconnection = LiveReconnection(limit: 6)
        let gate = InterruptGate()
        gate.requestStop()
        let started = Date()
        let outcome = reconnection.reopen(after: ErrorText("the stream ended"), gate: gate) { _, _ in true } open: { () throws(MediaError) -> Int in
            XCTFail("a stopped play opens nothing")
            return 0
        }
        guard case .stopped = outcome else { return XCTFail("\(outcome)") }
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.2, "no backoff slept")
        // A queue that refuses the announcement (its reader has gone) stops it too.
        var refused = LiveReconnection(limit: 6)
        guard case .stopped = refused.reopen(after: ErrorText("x"), gate: InterruptGate(), announce: { _, _ in false },
                                          open: { () throws(MediaError) -> Int in 0 }) else { return XCTFail("announce refused") }
    }
}

/// A clock a test moves by hand (the reconnection's `now` is `@Sendable`).
private final class TestClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)
    var now: ContinuousClock.Instant { instant.withLock { $0 } }
    func advance(by duration: Duration) { instant.withLock { $0 += duration } }
}

/// The backoffs a reconnection asked for (its closure is `@Sendable`).
private final class WaitLog: Sendable {
    let attempts = Mutex<[Int]>([])
}
