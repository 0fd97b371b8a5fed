import Compositor
import Foundation
import StoryMedia
import StoryModel
import StoryPlayback
import StoryTrace
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

/// The planner against the render it plans: the same frame count and the same plays, on
/// storyboards that end every way a viewer ends (the last item, a dismiss, a failed source, a
/// hold, a pull, a drag let go).
final class FramePlannerTests: XCTestCase {
    /// Stories of the sample media, at `fps`, with `script`, open-ended.
    func board(_ stories: String, script: String = "[]", fps: Double = 10) throws -> Storyboard {
        try Storyboard.parse("""
        {"canvas": {"width": 36, "height": 64, "fps": \(fps)},
         "transition": {"style": "cube", "duration": 0.6},
         "stories": \(stories), "script": \(script)}
        """, folder: (Fixture.sample("demo.json") as NSString).deletingLastPathComponent)
    }

    static let videosAndAPhoto = """
    [{"id": "beach", "items": [{"uri": "beach.mp4"}, {"uri": "sunset.jpg", "duration": 1.5}]},
     {"id": "city", "items": [{"uri": "city.mp4", "duration": 2.2}]},
     {"id": "night", "items": [{"uri": "night.mp4", "duration": 2.5}]}]
    """

    var boards: [(name: String, board: Storyboard)] {
        get throws {
            [
                ("to the last item", try board(Self.videosAndAPhoto)),
                ("held, pulled and let go", try board(Self.videosAndAPhoto, script: """
                [{"at": 1.0, "action": "hold", "for": 2.0}, {"at": 4.0, "action": "pull", "to": 0.3, "over": 0.3},
                 {"at": 4.5, "action": "release"}, {"at": 6.2, "action": "tap", "x": 0.8}]
                """)),
                ("dragged back, then swiped", try board(Self.videosAndAPhoto, script: """
                [{"at": 0.5, "action": "drag", "to": 0.3, "over": 0.4}, {"at": 1.0, "action": "release"},
                 {"at": 2.0, "action": "swipe", "direction": "next"}, {"at": 3.0, "action": "tap", "x": 0.2}]
                """)),
                ("a source that fails", try board("""
                [{"id": "gone", "items": [{"uri": "no-such-clip.mp4"}]},
                 {"id": "gone-short", "items": [{"uri": "no-such-clip.mp4", "duration": 1.2}]},
                 {"id": "city", "items": [{"uri": "city.mp4", "duration": 1.0}]}]
                """)),
                ("the demo, dismissed", try Storyboard(contentsOf: Fixture.sample("demo.json"))
                    .overriding(width: 36, height: 64, fps: 10)),
                ("a room", try Storyboard(contentsOf: Fixture.sample("room.json")).overriding(width: 36, height: 64, fps: 5)),
            ]
        }
    }

    func testThePlannedFrameCountIsTheRendersOnEveryWayAViewerEnds() throws {
        for (name, board) in try boards {
            let (summary, _, _) = try render(board) { $0.writeFrames = false }
            XCTAssertEqual(try StoryRenderer.countFrames(board), summary.frames, name)
            XCTAssertGreaterThan(summary.frames, 10, "\(name): the board plays for a while")
        }
    }

    /// Every play and stop in the render's trace is a planned play with the same story, item
    /// and times: create-on-play / drop-on-stop, known before anything is decoded.
    func testThePlannedPlaysAreTheTracesPlayAndStopEvents() throws {
        for (name, board) in try boards where name != "a room" {
            let (_, trace, _) = try render(board) { $0.writeFrames = false }
            var planner = FramePlanner(storyboard: board, lengths: .probing(board, limits: DecodeLimits()))
            let frames = planner.countFrames(limit: 10_000)
            let ids = board.stories.map(\.id)
            let planned = planner.plays.map { "\(ids[$0.story]) \($0.item) play \(Self.ms($0.start))" }
            let traced = trace.of(.play).map { "\($0.story) \($0.item ?? -1) play \(Self.ms($0.t))" }
            XCTAssertEqual(planned, traced, name)
            // A play the render ends at its last frame is stopped there by the render's end.
            let end = Double(frames) / board.canvas.fps
            let plannedStops = planner.plays.map { "\(ids[$0.story]) \($0.item) stop \(Self.ms(min($0.end ?? end, end)))" }
            let tracedStops = trace.of(.stop).map { "\($0.story) \($0.item ?? -1) stop \(Self.ms($0.t))" }
            XCTAssertEqual(plannedStops.sorted(), tracedStops.sorted(), name)
        }
    }

    /// A render is the planner followed by players: its planner's plays are the ones the planner
    /// alone finds, and each began when the trace says the player did.
    func testARenderFollowsTheSamePlanner() throws {
        for (name, board) in try boards where name != "a room" {
            let render = StoryRenderer(storyboard: board, options: RenderOptions(outputFolder: ScratchFolder().path))
            _ = try render.run()
            var alone = FramePlanner(storyboard: board, lengths: .probing(board, limits: DecodeLimits()))
            _ = alone.countFrames(limit: 10_000)
            XCTAssertEqual(render.planner.plays.map { [$0.story, $0.item, Self.ms($0.start)] },
                           alone.plays.map { [$0.story, $0.item, Self.ms($0.start)] }, name)
            XCTAssertEqual(render.planner.plays.map { Self.ms($0.start) },
                           render.trace.events.filter { $0.event == .play }.map { Self.ms($0.t) }, name)
        }
    }

    /// A frame's plan is a value: the same storyboard plans the same frames, and what it says is
    /// what the viewer shows (the page offset moves through a swipe; the held item's clock stops).
    func testPlansAreValuesThatFollowTheScript() throws {
        let board = try board(Self.videosAndAPhoto, script: """
        [{"at": 1.0, "action": "hold", "for": 1.0}, {"at": 3.0, "action": "swipe", "direction": "next"}]
        """)
        let lengths = ItemLengths.probing(board, limits: DecodeLimits())
        var first = FramePlanner(storyboard: board, lengths: lengths)
        var second = FramePlanner(storyboard: board, lengths: lengths)
        let plans = (0..<60).map { _ in first.next() }
        XCTAssertEqual(plans, (0..<60).map { _ in second.next() })
        // Held from 1.0 to 2.0: the item's clock stands at 1.0 s through the hold.
        XCTAssertEqual(plans[15].shown.first?.mediaTime ?? -1, 1.0, accuracy: 1e-9)
        XCTAssertEqual(plans[25].shown.first?.mediaTime ?? -1, 1.5, accuracy: 1e-9)
        XCTAssertLessThan(plans[15].overlayOpacity, 1)
        // The swipe at 3.0 moves the pages from 0 towards 1, both stories on screen mid-turn.
        XCTAssertEqual(plans[29].pageOffset, 0)
        XCTAssertTrue(plans[33].isMoving)
        XCTAssertGreaterThan(plans[33].pageOffset, 0)
        XCTAssertLessThan(plans[33].pageOffset, 1)
        XCTAssertEqual(plans[33].shown.map(\.story), [0, 1])
        XCTAssertEqual(plans[50].settledPage, 1)
        XCTAssertEqual(plans[50].playing.map(\.story), [1])
    }

    static func ms(_ t: Double) -> Int { Int((t * 1000).rounded()) }
}
