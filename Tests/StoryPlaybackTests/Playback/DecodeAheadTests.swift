import Foundation
import StoryBase
import Synchronization
@testable import StoryTrace
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

/// A recorded play decodes ahead into a byte budget (`DecodeLimits.decodeAheadBytes`), so the
/// story on screen keeps decoding while the next one opens (issue 33); what reaches the screen
/// stays the same.
final class DecodeAheadTests: XCTestCase {
    // MARK: - The budget

    func testTheBudgetHoldsFewerPicturesTheLargerTheyAre() {
        let limits = DecodeLimits()
        // 4:2:0 at 8 bits: 1.5 bytes a pixel.
        XCTAssertEqual(limits.picturesAhead(each: 720 * 1280 * 3 / 2), 12, "720x1280: eleven fit, and the cap is twelve")
        XCTAssertEqual(limits.picturesAhead(each: 1080 * 1920 * 3 / 2), 5)
        XCTAssertEqual(limits.picturesAhead(each: 3840 * 2160 * 3), 1, "a 10-bit 4K picture is over the budget: one")
        XCTAssertEqual(limits.picturesAhead(each: 0), 1, "a picture FFmpeg cannot size: one")
        var none = limits
        none.decodeAheadBytes = 0
        XCTAssertEqual(none.picturesAhead(each: 96 * 160 * 3 / 2), 1, "no budget: one")
    }

    func testAPictureKnowsWhatItHolds() throws {
        let decoder = try MediaDecoder(source: MediaSource(uri: Fixture.path("counter.mp4"), relativeTo: "/"), limits: DecodeLimits())
        defer { decoder.close() }
        let picture = try XCTUnwrap(try decoder.nextPicture())
        XCTAssertEqual(picture.byteCount, 96 * 160 * 3, "a 96x160 yuv444p picture: three full planes")
    }

    // MARK: - The queue

    func testWideningTheQueueLetsAWaitingProducerOn() {
        let queue = BoundedQueue<Int>(capacity: 1)
        queue.put(1)
        let put = expectation(description: "second put")
        let done = Atomic<Bool>(false)
        Thread.detachNewThread {
            XCTAssertTrue(queue.put(2))
            done.store(true, ordering: .sequentiallyConsistent)
            put.fulfill()
        }
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertFalse(done.load(ordering: .sequentiallyConsistent), "the producer waits while the queue is full")
        XCTAssertEqual(queue.count, 1)
        queue.setCapacity(3)
        wait(for: [put], timeout: 5)
        XCTAssertEqual(queue.count, 2)
        queue.setCapacity(1)
        XCTAssertEqual(queue.tryTake(), 1, "narrowing keeps what is queued")
        XCTAssertEqual(queue.tryTake(), 2)
    }

    // MARK: - A play

    /// counter.mp4 has 30 pictures, k/30 s each. With the budget, the thread decodes up to about
    /// fifteen pictures past the one shown (two converted, twelve decoded, one in hand); without
    /// one, three or four, as before.
    func testARecordedPlayRunsAheadIntoItsBudgetAndNoFurther() throws {
        for budget in [DecodeLimits().decodeAheadBytes, 0] {
            var limits = DecodeLimits()
            limits.decodeAheadBytes = budget
            let (player, item) = try playCounterClip("ahead-\(budget)", limits: limits)
            for n in 0...2 { XCTAssertNotNil(item.picture(at: Double(n) / 30), "picture \(n)") }
            let reach = try XCTUnwrap(item.decodeThread?.reach)
            if budget > 0 {
                XCTAssertTrue(LiveServers.waitUntil(3) { (reach.decodedThrough ?? 0) >= 14.0 / 30 - 1e-6 },
                              "decoded ahead into the budget: through \(String(describing: reach.decodedThrough))")
                Thread.sleep(forTimeInterval: 0.3)
                XCTAssertLessThanOrEqual(reach.decodedThrough ?? 1, 19.0 / 30 + 1e-6, "and stops at the budget")
            } else {
                XCTAssertTrue(LiveServers.waitUntil(3) { (reach.decodedThrough ?? 0) >= 5.0 / 30 - 1e-6 })
                Thread.sleep(forTimeInterval: 0.3)
                XCTAssertLessThanOrEqual(reach.decodedThrough ?? 1, 6.0 / 30 + 1e-6,
                                         "one decoded picture queued: \(String(describing: reach.decodedThrough))")
            }
            player.stop(at: 3.0 / 30)
            XCTAssertFalse(item.holdsDecoder)
        }
    }

    /// A room's participant keeps one decoded picture, budget or not: nine of them would hold
    /// nine budgets.
    func testARoomParticipantKeepsOnePicture() throws {
        let item = StoryItem(source: MediaSource(uri: Fixture.path("counter.mp4"), relativeTo: "/"))
        let player = ItemPlayer(id: 1, itemIndex: 0, item: item, storyID: "room", startedAt: 0, size: (96, 160),
                                fitsWhole: true, limits: DecodeLimits(), clock: nil, waits: true, participant: "ana",
                                trace: LifecycleTrace())
        for n in 0...2 { XCTAssertNotNil(player.picture(at: Double(n) / 30), "picture \(n)") }
        let reach = try XCTUnwrap(player.decodeThread?.reach)
        XCTAssertTrue(LiveServers.waitUntil(3) { (reach.decodedThrough ?? 0) >= 5.0 / 30 - 1e-6 })
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertLessThanOrEqual(reach.decodedThrough ?? 1, 6.0 / 30 + 1e-6,
                                 "one decoded picture queued: \(String(describing: reach.decodedThrough))")
        player.close()
    }

    /// A play that stops decodes at most the one picture past its last shown that the reach
    /// allows: the render foresees each end further ahead than a thread decodes. Three stories
    /// of 720x1280 clips (twelve pictures ahead), turned at moments that fall at every phase of
    /// the foresight's checks. With the half-second window the checks used before, a play
    /// ending just past it had been decoded up to 15 pictures too far.
    func testAPlayThatStopsHasDecodedNoMoreThanOnePicturePastItsLast() throws {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 90, "height": 160, "fps": 30}, "duration": 3,
         "stories": [{"id": "n", "items": [{"uri": "\(Fixture.sample("night.mp4"))"}]},
                     {"id": "c", "items": [{"uri": "\(Fixture.sample("city.mp4"))"}]},
                     {"id": "f", "items": [{"uri": "\(Fixture.sample("forest.mp4"))"}]},
                     {"id": "b", "items": [{"uri": "\(Fixture.sample("beach.mp4"))"}]}],
         "script": [{"at": 0.4, "action": "swipe", "direction": "next"}, {"at": 1.3, "action": "swipe", "direction": "next"},
                    {"at": 2.1, "action": "swipe", "direction": "next"}]}
        """)
        let folder = ScratchFolder()
        var options = RenderOptions(outputFolder: folder.path)
        options.threads = 2
        let render = StoryRenderer(storyboard: board, options: options)
        _ = try render.run()
        let stops = render.trace.events.filter { $0.event == .stop }.count
        XCTAssertEqual(stops, 4)
        XCTAssertEqual(render.reachLifts, 0)
        XCTAssertLessThanOrEqual(render.picturesDecodedPastStops, stops,
                                 "pictures decoded past the last shown, over \(stops) stops")
    }

    /// Decoding ahead changes when pictures are decoded, never which are shown: a cube turn
    /// between two clips renders the same PNG bytes and the same trace with the budget and
    /// without one.
    func testARenderDrawsTheSamePicturesWithAndWithoutDecodingAhead() throws {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 180, "height": 320, "fps": 30}, "duration": 2.5,
         "transition": {"style": "cube", "duration": 0.6},
         "stories": [{"id": "n", "items": [{"uri": "\(Fixture.sample("night.mp4"))"}]},
                     {"id": "c", "items": [{"uri": "\(Fixture.sample("city.mp4"))"}]}],
         "script": [{"at": 0.8, "action": "swipe", "direction": "next"}]}
        """)
        var frames: [Int: [Data]] = [:]
        var traces: [Int: [String]] = [:]
        for budget in [DecodeLimits().decodeAheadBytes, 0] {
            let result = try render(board) { $0.limits.decodeAheadBytes = budget }
            let names = try FileManager.default.contentsOfDirectory(atPath: result.folder.path)
                .filter { $0.hasPrefix("frame-") }.sorted()
            XCTAssertEqual(names.count, 75)
            frames[budget] = try names.map { try Data(contentsOf: URL(fileURLWithPath: result.folder.path + "/" + $0)) }
            traces[budget] = result.trace.map { "\($0.t) \($0.event) \($0.story) \($0.player ?? -1) \($0.pictures ?? -1)" }
        }
        let ahead = try XCTUnwrap(frames[DecodeLimits().decodeAheadBytes]), one = try XCTUnwrap(frames[0])
        XCTAssertEqual(ahead.count, one.count)
        for (index, (a, b)) in zip(ahead, one).enumerated() {
            XCTAssertEqual(a, b, "frame \(index) differs")
        }
        XCTAssertEqual(traces[DecodeLimits().decodeAheadBytes], traces[0])
    }
}
