import Compositor
import StoryMedia
import StoryModel
import StoryPlayback
import StoryRender
import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// The seed's BroadcastStory rules, on real FFmpeg players.
final class PlayerLifecycleTests: XCTestCase {
    let canvas = Canvas(width: 96, height: 160, fps: 30)

    func story(_ id: String = "a") -> Story {
        Story(id: id, items: [StoryItem(source: MediaSource(uri: Fixture.path("counter.mp4"), relativeTo: "/")),
                              StoryItem(source: MediaSource(uri: Fixture.path("odd.png"), relativeTo: "/"))])
    }

    func testPlayCreatesAFreshPlayerAndStopFreesIt() throws {
        let trace = LifecycleTrace()
        let player = StoryPlaybackController(story: story(), canvas: canvas, trace: trace)
        let first = try XCTUnwrap(player.play(item: 0, at: 0))
        XCTAssertTrue(first.holdsDecoder)
        XCTAssertNotNil(first.picture(at: 0))
        player.stop(at: 1)
        XCTAssertFalse(first.holdsDecoder, "stop() frees every FFmpeg object before it returns")
        XCTAssertFalse(player.isPlaying)
        let second = try XCTUnwrap(player.play(item: 0, at: 2))
        XCTAssertFalse(first === second, "nothing is reused from an earlier play")
        XCTAssertNotEqual(first.id, second.id, "a new play gets a new id")
        XCTAssertTrue(second.holdsDecoder)
        player.stop(at: 3)
        XCTAssertEqual(trace.events.map(\.event), [.play, .opened, .firstFrame, .stop, .play, .opened, .stop])
        XCTAssertEqual(TraceCheck.check(trace.jsonLines), [])
    }

    func testRepeatedCallsChangeNothingAndAreTraced() throws {
        let trace = LifecycleTrace()
        let player = StoryPlaybackController(story: story(), canvas: canvas, trace: trace)
        player.stop(at: 0)
        let first = player.play(item: 0, at: 0.5)
        let again = player.play(item: 1, at: 0.6)
        XCTAssertTrue(first === again, "play() on a playing story keeps the player it has")
        XCTAssertEqual(player.current?.itemIndex, 0)
        player.stop(at: 1)
        player.stop(at: 1.1)
        let ignored = trace.events.of(.ignored)
        XCTAssertEqual(ignored.map(\.call), ["stop", "play", "stop"])
        XCTAssertEqual(ignored[1].player, first?.id)
        XCTAssertEqual(trace.events.of(.play).count, 1)
        XCTAssertEqual(trace.events.of(.stop).count, 1)
    }

    func testThePictureShownIsTheLatestFrameNotAfterTheMediaTime() throws {
        let trace = LifecycleTrace()
        let player = StoryPlaybackController(story: story(), canvas: canvas, trace: trace)
        let item = try XCTUnwrap(player.play(item: 0, at: 10))
        // Frame n of counter.mp4 is the full-range grey 16 + 7n.
        func frameNumber(at t: Double) throws -> Int {
            let picture = try XCTUnwrap(item.picture(at: t))
            return Int(((Double(picture[48, 80].green) - 16) / 7).rounded())
        }
        XCTAssertEqual(try frameNumber(at: 10), 0)
        XCTAssertEqual(try frameNumber(at: 10 + 0.5), 15)
        XCTAssertEqual(try frameNumber(at: 10 + 0.5 + 0.02), 15, "frame 16 is not due until 0.533 s")
        XCTAssertEqual(try frameNumber(at: 10 + 0.9), 27)
        XCTAssertEqual(item.length ?? 0, 1, accuracy: 0.04)
        XCTAssertTrue(item.hasEnded(at: 11.01))
        player.stop(at: 12)
    }

    func testAPhotoLastsFiveSecondsByDefault() throws {
        let trace = LifecycleTrace()
        let player = StoryPlaybackController(story: story(), canvas: canvas, trace: trace)
        let item = try XCTUnwrap(player.play(item: 1, at: 0))
        XCTAssertNotNil(item.picture(at: 0))
        XCTAssertEqual(item.length, StoryItem.defaultPhotoDuration)
        XCTAssertFalse(item.hasEnded(at: 4.9))
        XCTAssertTrue(item.hasEnded(at: 5))
        player.stop(at: 5)
    }

    // MARK: - Whole renders

    func board(script: String, start: String = "reveal", duration: Double = 4) throws -> Storyboard {
        try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": \(duration),
         "transition": {"duration": 0.3, "start": "\(start)"},
         "stories": [{"id": "a", "items": [{"uri": "Fixtures/counter.mp4", "duration": 5}]},
                     {"id": "b", "items": [{"uri": "Fixtures/counter.mp4"}]},
                     {"id": "c", "items": [{"uri": "Fixtures/odd.png"}]}],
         "script": [\(script)]}
        """)
    }

    /// A drag reveals b and is released back to a: b's player is created and dropped. Swiping
    /// to b later creates a new player with a new id.
    func testDragAndCancelCreatesThenDropsThenANewIdLater() throws {
        let (summary, events, _) = try render(board(script: """
        {"at": 0.5, "action": "drag", "to": 0.3, "over": 0.2}, {"at": 1.0, "action": "release"},
        {"at": 2.0, "action": "swipe", "direction": "next"}
        """))
        let bPlays = events.of(.play, story: "b")
        let bStops = events.of(.stop, story: "b")
        XCTAssertEqual(bPlays.count, 2)
        XCTAssertEqual(bPlays[0].t, 0.6, accuracy: 1e-9, "revealed by the drag")
        XCTAssertLessThan(bStops[0].t, 2.0, "dropped when the drag returned")
        XCTAssertGreaterThanOrEqual(bStops[0].t, 1.0)
        XCTAssertNotEqual(bPlays[0].player, bPlays[1].player)
        XCTAssertEqual(events.of(.play, story: "a").count, 1, "a kept playing through the cancelled drag")
        XCTAssertEqual(summary.peakAlivePlayers, 2)
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [])
    }

    /// At rest exactly one story plays; mid-swipe two; once settled the other is dropped at once.
    func testAliveCountsAroundASwipe() throws {
        let board = try board(script: #"{"at": 1.0, "action": "swipe", "direction": "next"}"#)
        let (_, events, _) = try render(board)
        let aStop = try XCTUnwrap(events.of(.stop, story: "a").first)
        let bPlay = try XCTUnwrap(events.of(.play, story: "b").first)
        XCTAssertEqual(bPlay.t, 1.1, accuracy: 1e-9, "b plays from the first frame it shows")
        XCTAssertEqual(aStop.t, 1.3, accuracy: 1e-9, "a is dropped the moment the swipe lands")
        var alive = 0, peak = 0
        for event in events {
            if event.event == .play { alive += 1 }
            if event.event == .stop { alive -= 1 }
            peak = max(peak, alive)
        }
        XCTAssertEqual(peak, 2)
    }

    func testSettleKeepsTheIncomingStoryOnItsPosterUntilItLands() throws {
        let (summary, events, _) = try render(board(script: #"{"at": 1.0, "action": "swipe", "direction": "next"}"#, start: "settle"))
        let bPlay = try XCTUnwrap(events.of(.play, story: "b").first)
        XCTAssertEqual(bPlay.t, 1.3, accuracy: 1e-9)
        XCTAssertEqual(summary.peakAlivePlayers, 1)
    }

    func testItemsEndThenAutoAdvanceThenTheRenderEnds() throws {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "transition": {"duration": 0.3},
         "stories": [{"id": "a", "items": [{"uri": "Fixtures/counter.mp4"}, {"uri": "Fixtures/odd.png", "duration": 0.5}]},
                     {"id": "b", "items": [{"uri": "Fixtures/counter.mp4", "duration": 0.6}]}]}
        """)
        let (summary, events, _) = try render(board)
        let ends = events.of(.ended)
        XCTAssertEqual(ends.map(\.story), ["a", "a", "b"])
        XCTAssertEqual(ends.map(\.item), [0, 1, 0])
        XCTAssertEqual(ends[0].t, 1.0, accuracy: 1e-9)
        XCTAssertEqual(ends[1].t, 1.5, accuracy: 1e-9)
        XCTAssertEqual(events.of(.play, story: "b").first?.t ?? 0, 1.6, accuracy: 1e-9, "the auto-advance reveals b")
        // b lands at 1.8 and plays 0.6 s: the default duration is the end of the last item.
        XCTAssertEqual(ends[2].t, 1.6 + 0.6, accuracy: 0.11)
        XCTAssertEqual(summary.frames, Int((ends[2].t * 10).rounded()))
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [])
    }
}
