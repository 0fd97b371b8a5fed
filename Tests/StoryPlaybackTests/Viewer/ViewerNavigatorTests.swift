import Compositor
import StoryMedia
import StoryModel
import StoryPlayback
import StoryRender
import StoryTrace
import StoryPlayerTestSupport
import XCTest

final class ViewerNavigatorTests: XCTestCase {
    func board(_ script: String, start: String = "reveal", style: String = "cube", items: [Int] = [1, 1, 1],
               gesture: String = "") throws -> Storyboard {
        let stories = items.enumerated().map { index, count in
            "{\"id\": \"s\(index)\", \"items\": [" + (0..<count).map { _ in "{\"uri\": \"a.mp4\"}" }.joined(separator: ",") + "]}"
        }.joined(separator: ",")
        return try Storyboard.parse("""
        {"transition": {"duration": 0.4, "start": "\(start)", "style": "\(style)"}, \(gesture.isEmpty ? "" : "\"gesture\": \(gesture),")
         "stories": [\(stories)], "script": [\(script)]}
        """)
    }

    func testSwipeEasesOutOverTheTransitionDuration() throws {
        var nav = ViewerNavigator(storyboard: try board(#"{"at": 1, "action": "swipe", "direction": "next"}"#))
        nav.advance(to: 1.0)
        XCTAssertEqual(nav.pageOffset, 0)
        nav.advance(to: 1.2)
        XCTAssertEqual(nav.pageOffset, 0.875, accuracy: 1e-9, "ease-out: 1 − (1 − ½)³")
        XCTAssertTrue(nav.isMoving)
        XCTAssertEqual(nav.playingStories.map(\.story), [0, 1])
        nav.advance(to: 1.4)
        XCTAssertEqual(nav.pageOffset, 1)
        XCTAssertEqual(nav.settledPage, 1)
        XCTAssertFalse(nav.isMoving)
        XCTAssertEqual(nav.playingStories.map(\.story), [1])
    }

    /// With `gesture.curve: "ease_out"` a release eases over the remaining distance, as every
    /// release did before springs (the default spring is in GestureTests).
    func testShortDragReleasedSnapsBack() throws {
        var nav = ViewerNavigator(storyboard: try board(#"{"at": 1, "action": "drag", "to": 0.3, "over": 0.3}, {"at": 1.5, "action": "release"}"#,
                                                        gesture: #"{"curve": "ease_out"}"#))
        nav.advance(to: 1.15)
        XCTAssertEqual(nav.pageOffset, 0.15, accuracy: 1e-9, "a drag moves linearly")
        nav.advance(to: 1.45)
        XCTAssertEqual(nav.pageOffset, 0.3, accuracy: 1e-9, "nothing lands until release")
        XCTAssertEqual(nav.playingStories.map(\.story), [0, 1])
        nav.advance(to: 1.5 + 0.4 * 0.3)
        XCTAssertEqual(nav.pageOffset, 0, "the return takes the time scaled by the distance left")
        XCTAssertEqual(nav.settledPage, 0)
    }

    func testDragOfHalfAPageCompletes() throws {
        var nav = ViewerNavigator(storyboard: try board(#"{"at": 1, "action": "drag", "to": 0.5, "over": 0.2}, {"at": 1.3, "action": "release"}"#,
                                                        gesture: #"{"curve": "ease_out"}"#))
        nav.advance(to: 1.3 + 0.2 + 1e-6)
        XCTAssertEqual(nav.settledPage, 1)
        XCTAssertEqual(nav.pageOffset, 1)
    }

    func testSettleStartPlaysOnlyTheStoryItRestsOn() throws {
        var nav = ViewerNavigator(storyboard: try board(#"{"at": 1, "action": "swipe", "direction": "next"}"#, start: "settle"))
        nav.advance(to: 1.2)
        XCTAssertEqual(nav.visibleStories.map(\.story), [0, 1])
        XCTAssertEqual(nav.playingStories.map(\.story), [0])
        nav.advance(to: 1.5)
        XCTAssertEqual(nav.playingStories.map(\.story), [1])
    }

    func testSwipesOutOfRangeAreIgnoredAndReported() throws {
        var nav = ViewerNavigator(storyboard: try board(#"{"at": 0.5, "action": "swipe", "direction": "previous"}"#))
        nav.advance(to: 2)
        XCTAssertEqual(nav.pageOffset, 0)
        XCTAssertEqual(nav.notices.count, 1)
        XCTAssertTrue(nav.notices[0].contains("ignored swipe previous"))
    }

    func testTapZonesMoveByItemThenByStory() throws {
        var nav = ViewerNavigator(storyboard: try board("""
        {"at": 1, "action": "tap", "x": 0.8}, {"at": 2, "action": "tap", "x": 0.8}, {"at": 3, "action": "tap", "x": 0.2},
        {"at": 4, "action": "tap", "x": 0.2}
        """, items: [2, 1]))
        nav.advance(to: 1)
        XCTAssertEqual(nav.settledPage, 0)
        XCTAssertEqual(nav.currentItems, [1, 0], "right of the left third: next item")
        nav.advance(to: 2)
        XCTAssertEqual(nav.settledPage, 1, "at the story's last item: next story, as a cut")
        XCTAssertEqual(nav.pageOffset, 1)
        XCTAssertFalse(nav.isMoving)
        nav.advance(to: 3)
        XCTAssertEqual(nav.settledPage, 0, "left third at a story's first item: previous story")
        nav.advance(to: 4)
        XCTAssertEqual(nav.currentItems, [0, 0], "left third: previous item")
    }

    func testItemEndsPlayNextItemThenAutoAdvanceThenFinish() throws {
        var nav = ViewerNavigator(storyboard: try board("", items: [2, 1]))
        nav.currentItemEnded(at: 3)
        XCTAssertEqual(nav.currentItems[0], 1)
        XCTAssertFalse(nav.isMoving)
        nav.currentItemEnded(at: 5)
        XCTAssertTrue(nav.isMoving, "the last item's end swipes to the next story")
        nav.advance(to: 5.2)
        XCTAssertEqual(nav.pageOffset, 0.875, accuracy: 1e-9)
        nav.advance(to: 5.4)
        XCTAssertEqual(nav.settledPage, 1)
        nav.currentItemEnded(at: 8)
        XCTAssertTrue(nav.isFinished)
    }

    func testPerSwipeStyleOverride() throws {
        var nav = ViewerNavigator(storyboard: try board(#"{"at": 1, "action": "swipe", "direction": "next", "style": "slide"}"#))
        nav.advance(to: 1.1)
        XCTAssertEqual(nav.geometry.style, .slide)
        nav.advance(to: 2)
        XCTAssertEqual(nav.geometry.style, .cube)
    }
}
