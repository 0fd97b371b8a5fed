import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryTrace
import XCTest

/// A play told where it ends (`ItemPlayer.foreseeEnd`) decodes no further than the first picture
/// past its last shown time (`DecodeReach`); one told wrongly still shows every picture it needs.
final class PlayEndForesightTests: XCTestCase {
    func testAForeseenPlayDecodesOnePicturePastItsLastShownTimeAndAnUnforeseenOneRunsAhead() throws {
        let (player, item) = try playCounterClip("foreseen")
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
        let (player, item) = try playCounterClip("lifted")
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
