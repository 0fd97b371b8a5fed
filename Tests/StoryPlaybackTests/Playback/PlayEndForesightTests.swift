import Compositor
import Foundation
import Synchronization
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// A play told where it ends (`ItemPlayer.foreseeEnd`) decodes no further than the first picture
/// past its last shown time (`DecodeReach`); one told wrongly still shows every picture it needs.
final class PlayEndForesightTests: XCTestCase {
    /// A foreseen play's limits: the foresight is given just after `play`, whose thread starts
    /// at once, and a recorded play may decode up to `mostPicturesAhead` pictures before anything
    /// is shown. On a loaded machine (the test thread descheduled between the two calls) it had
    /// decoded past 10.5 / 30 before the foresight came, and the test failed though nothing
    /// was wrong. A render foresees `picturesInFlight` ahead, so it never meets that race; with
    /// one picture of decode-ahead here, the thread cannot reach the foreseen end before it is set.
    let foreseen: DecodeLimits = {
        var limits = DecodeLimits()
        limits.decodeAheadBytes = 0
        return limits
    }()

    func testAForeseenPlayDecodesOnePicturePastItsLastShownTimeAndAnUnforeseenOneRunsAhead() throws {
        let (player, item) = try playCounterClip("foreseen", limits: foreseen)
        item.foreseeEnd(showingUpTo: 10.5 / 30)
        for n in 0...10 { XCTAssertNotNil(item.picture(at: Double(n) / 30), "picture \(n)") }
        let reach = try XCTUnwrap(item.decodeThread?.reach)
        let last = 11.0 / 30
        XCTAssertTrue(LiveServers.waitUntil(2) { reach.decodedThrough.map { abs($0 - last) < 1e-6 } ?? false },
                      "the thread decodes up to the picture after the end, then waits: \(String(describing: reach.decodedThrough))")
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(reach.decodedThrough ?? -1, last, accuracy: 1e-6, "no picture after the first past the foreseen end")
        player.stop(at: last)
        XCTAssertFalse(item.holdsDecoder)

        // The same play without foresight: its queues fill four pictures past the one shown.
        let (other, free) = try playCounterClip("free")
        for n in 0...10 { XCTAssertNotNil(free.picture(at: Double(n) / 30), "picture \(n)") }
        let freeReach = try XCTUnwrap(free.decodeThread?.reach)
        XCTAssertTrue(LiveServers.waitUntil(2) { (freeReach.decodedThrough ?? 0) >= 13.0 / 30 - 1e-6 },
                      "an unforeseen play decodes ahead: \(String(describing: freeReach.decodedThrough))")
        other.stop(at: last)
    }

    func testAPictureNeededPastAWrongForesightIsShownAllTheSame() throws {
        let (player, item) = try playCounterClip("lifted", limits: foreseen)
        item.foreseeEnd(showingUpTo: 5.5 / 30)
        for n in 0...5 { XCTAssertNotNil(item.picture(at: Double(n) / 30), "picture \(n)") }
        XCTAssertEqual(item.reachLifts, 0)
        XCTAssertNotNil(item.picture(at: 20.0 / 30))
        XCTAssertEqual(item.shown?.time ?? -1, 20.0 / 30, accuracy: 1e-6, "the picture of 20/30 s, decoded past the reach")
        XCTAssertEqual(item.reachLifts, 1, "the player lifted the reach once")
        player.stop(at: 1)
    }

    func testAWaitingThreadEndsWithItsPlay() throws {
        let (player, item) = try playCounterClip("stopped")
        item.foreseeEnd(showingUpTo: 2.5 / 30)
        for n in 0...2 { XCTAssertNotNil(item.picture(at: Double(n) / 30), "picture \(n)") }
        let reach = try XCTUnwrap(item.decodeThread?.reach)
        XCTAssertTrue(LiveServers.waitUntil(2) { reach.decodedThrough.map { $0 > 2.5 / 30 } ?? false })
        let started = Date()
        player.stop(at: 3.0 / 30)
        XCTAssertFalse(item.holdsDecoder)
        XCTAssertLessThan(Date().timeIntervalSince(started), DecodeThread.stopWait + 0.05,
                          "stop() wakes the waiting thread instead of waiting for its poll")
        XCTAssertTrue(LiveServers.waitUntil(2) { FormatContext.alive.load(ordering: .relaxed) == 0 },
                      "the waiting thread freed its demuxer as it ended")
    }
}

/// `DecodeReach` alone: the wait a decode thread makes before each picture.
final class DecodeReachTests: XCTestCase {
    func testTheThreadWaitsPastTheLimitUntilItIsLiftedOrStopped() {
        let reach = DecodeReach(), gate = InterruptGate()
        XCTAssertTrue(reach.waitForRoom(after: nil, gate: gate), "the first picture is always decoded")
        reach.limit(to: 1.0)
        XCTAssertTrue(reach.waitForRoom(after: 1.0, gate: gate), "a picture at the limit is shown: the next is needed")
        let lifted = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            XCTAssertTrue(reach.waitForRoom(after: 1.5, gate: gate))
            lifted.signal()
        }
        XCTAssertEqual(lifted.wait(timeout: .now() + 0.3), .timedOut, "past the limit the thread waits")
        reach.lift()
        XCTAssertEqual(lifted.wait(timeout: .now() + 1), .success, "lifting the reach lets it decode on")

        reach.limit(to: 1.0)
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            XCTAssertFalse(reach.waitForRoom(after: 2.0, gate: gate), "a stopped play decodes nothing more")
            stopped.signal()
        }
        XCTAssertEqual(stopped.wait(timeout: .now() + 0.2), .timedOut)
        gate.requestStop()
        reach.release()
        XCTAssertEqual(stopped.wait(timeout: .now() + 1), .success)
    }
}

// MARK: - A shard that starts where a play shows its first picture ahead of its time

final class ShardStartInAPausedPlayTests: XCTestCase {
    /// Found by an audit of hand-written boards: a story is left for the next and tapped back
    /// to at 1.875 s, then held and pulled (never released), so its new play's media time stands
    /// near zero. A shard starting at 2 s opens that play mid-item: its first picture lies past
    /// the play's foreseen end, so its thread decodes that one picture and waits, and the player
    /// waited for the picture after it to learn whether the first was due. The shard hung with
    /// no CPU use, for good. It must finish, with the whole render's frames.
    func testAShardThatStartsInAPlayPausedBeforeItsSecondPictureFinishes() throws {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 24}, "duration": 3,
         "transition": {"style": "cut", "duration": 1}, "preload": {"behind": 0, "ahead": 0},
         "stories": [{"id": "s0", "items": [{"uri": "\(Fixture.sample("sunset.jpg"))", "duration": 2},
                                            {"uri": "\(Fixture.sample("sunset.jpg"))", "duration": 1}]},
                     {"id": "s1", "items": [{"uri": "\(Fixture.sample("forest.mp4"))", "duration": 0.3}]},
                     {"id": "s2", "items": [{"uri": "\(Fixture.sample("sunset.jpg"))", "duration": 0.3}]}],
         "script": [{"at": 0.8, "action": "swipe", "direction": "next", "style": "cube"},
                    {"at": 1.85, "action": "tap", "x": 0.25}, {"at": 1.85, "action": "hold", "for": 0.1},
                    {"at": 1.9, "action": "pull", "to": 0.89, "over": 0.01}]}
        """, folder: "/")
        let whole = try render(board).folder
        let shard = ScratchFolder()
        let finished = expectation(description: "the shard from frame 48 finishes")
        let outcome = Mutex<String?>(nil)
        let thread = Thread {
            do {
                let summary = try render(board, into: shard) { $0.frameRange = 48..<60 }.summary
                outcome.withLock { $0 = "\(summary.frames) frames" }
            } catch {
                outcome.withLock { $0 = "\(error)" }
            }
            finished.fulfill()
        }
        thread.start()
        wait(for: [finished], timeout: 60)
        XCTAssertEqual(outcome.withLock { $0 }, "12 frames")
        for n in 48..<60 {
            let name = String(format: "frame-%06d.png", n)
            XCTAssertEqual(FileManager.default.contents(atPath: shard.file(name)), FileManager.default.contents(atPath: whole.file(name)),
                           "\(name) as the whole render drew it")
        }
    }
}
