import Compositor
import StoryMedia
import StoryModel
import StoryPlayerTestSupport
import XCTest

final class StoryboardTests: XCTestCase {
    func testEveryKeyButStoriesHasADefault() throws {
        let board = try Storyboard.parse(#"{"stories": [{"id": "a", "items": [{"uri": "clip.mp4"}]}]}"#, folder: "/boards")
        XCTAssertEqual(board.canvas, Canvas(width: 720, height: 1280, fps: 30, background: .black))
        XCTAssertEqual(board.transition.geometry, PageTransition(style: .cube, axis: .horizontal, perspective: 2.6667, shading: 0.35))
        XCTAssertEqual(board.transition.duration, 0.35)
        XCTAssertEqual(board.transition.start, .reveal)
        XCTAssertNil(board.duration)
        XCTAssertEqual(board.script, [])
        XCTAssertEqual(board.stories[0].items[0].source.location, "/boards/clip.mp4")
        XCTAssertFalse(board.stories[0].items[0].source.isRemote)
    }

    func testTheIssueExampleParses() throws {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 720, "height": 1280, "fps": 30, "background": "#000000"},
         "transition": {"style": "cube", "axis": "horizontal", "duration": 0.35, "perspective": 2.6667, "shading": 0.35, "start": "reveal"},
         "duration": 12.0,
         "stories": [
           {"id": "beach", "poster": "beach-poster.jpg", "items": [{"uri": "beach.mp4"}, {"uri": "sunset.jpg", "duration": 5.0}]},
           {"id": "city", "items": [{"uri": "city.mp4", "duration": 3.0}]}],
         "script": [
           {"at": 4.4, "action": "release"},
           {"at": 2.0, "action": "swipe", "direction": "next"},
           {"at": 4.0, "action": "drag", "to": 0.3, "over": 0.4},
           {"at": 5.0, "action": "tap", "side": "right"}]}
        """)
        XCTAssertEqual(board.duration, 12)
        XCTAssertEqual(board.stories.map(\.id), ["beach", "city"])
        XCTAssertEqual(board.stories[0].items[1].duration, 5)
        XCTAssertEqual(board.script.map(\.at), [2.0, 4.0, 4.4, 5.0], "the script is ordered by time")
        XCTAssertEqual(board.script[1].gesture, .drag(pages: 0.3, seconds: 0.4))
        XCTAssertEqual(board.script[3].gesture, .tap(x: 1))
    }

    func testURLsAreRemoteAndFileURLsAreLocal() throws {
        let board = try Storyboard.parse(#"{"stories": [{"items": [{"uri": "https://example.com/live.m3u8"}, {"uri": "file:///tmp/a.mp4"}]}]}"#)
        XCTAssertTrue(board.stories[0].items[0].source.isRemote)
        XCTAssertEqual(board.stories[0].items[0].source.allowedProtocols, MediaSource.networkProtocols)
        XCTAssertEqual(board.stories[0].items[1].source.location, "/tmp/a.mp4")
        XCTAssertEqual(board.stories[0].items[1].source.allowedProtocols, ["file", "crypto"])
        XCTAssertEqual(board.stories[0].id, "story1", "ids default to the story's position")
    }

    /// Each broken storyboard is refused with the JSON path of the problem.
    func testErrorsNameTheJSONPath() {
        let cases: [(String, String)] = [
            (#"{"stories": [{"id": "a", "items": [{"uri": "a.mp4"}]}, {"id": "b", "items": [{"duration": 2}]}]}"#,
             "stories[1].items[0].uri: missing"),
            (##"{"canvas": {"colour": "#000000"}, "stories": [{"items": [{"uri": "a"}]}]}"##, "canvas.colour: unknown key"),
            (#"{"canvas": {"width": "wide"}, "stories": [{"items": [{"uri": "a"}]}]}"#, "canvas.width: expected an integer, got a string"),
            (#"{"canvas": {"width": 720.5}, "stories": [{"items": [{"uri": "a"}]}]}"#, "canvas.width: expected an integer"),
            (#"{"canvas": {"fps": 0}, "stories": [{"items": [{"uri": "a"}]}]}"#, "canvas.fps: 0 is out of range"),
            (#"{"canvas": {"background": "black"}, "stories": [{"items": [{"uri": "a"}]}]}"#, "canvas.background: expected a colour"),
            (#"{"stories": []}"#, "stories: must list at least one story"),
            (#"{"duration": 3}"#, "stories: missing"),
            (#"{"stories": [{"id": "a", "items": [{"uri": "a"}]}, {"id": "a", "items": [{"uri": "b"}]}]}"#, "stories[1].id: duplicate id \"a\""),
            (#"{"stories": [{"id": "a", "items": []}]}"#, "stories[0].items: must list at least one item"),
            (#"{"stories": [{"items": [{"uri": "a", "duration": -1}]}]}"#, "stories[0].items[0].duration: -1 is out of range"),
            (#"{"stories": [{"items": [{"uri": 5}]}]}"#, "stories[0].items[0].uri: expected a string, got a number"),
            (#"{"transition": {"style": "flip"}, "stories": [{"items": [{"uri": "a"}]}]}"#, "transition.style: \"flip\" is not one of"),
            (#"{"transition": {"start": "later"}, "stories": [{"items": [{"uri": "a"}]}]}"#, "transition.start: \"later\" is not one of"),
            (#"{"transition": {"shading": 2}, "stories": [{"items": [{"uri": "a"}]}]}"#, "transition.shading: 2 is out of range"),
            (#"{"stories": [{"items": [{"uri": "a"}]}], "script": [{"at": 1, "action": "fly"}]}"#, "script[0].action: unknown action \"fly\""),
            (#"{"stories": [{"items": [{"uri": "a"}]}], "script": [{"at": 1, "action": "swipe", "direction": "up"}]}"#, "script[0].direction: \"up\" is not one of"),
            (#"{"stories": [{"items": [{"uri": "a"}]}], "script": [{"action": "release"}]}"#, "script[0].at: missing"),
            (#"{"stories": [{"items": [{"uri": "a"}]}], "script": [{"at": 1, "action": "drag", "to": 1.5}]}"#, "script[0].to: 1.5 is out of range"),
            (#"{"stories": [{"items": [{"uri": "a"}]}], "script": [{"at": 1, "action": "tap", "side": "left", "x": 0.2}]}"#, "script[0].x: give either"),
            (#"{"stories": [{"items": [{"uri": "a"}]}], "script": [{"at": 1, "action": "release", "direction": "next"}]}"#, "script[0].direction: unknown key"),
            (#"{"stories": [{"items": [{"uri": "a"}]}], "extra": true}"#, "extra: unknown key"),
            (#"[1, 2]"#, "expected an object, got an array"),
            (#"{"stories": "#, "not valid JSON"),
        ]
        for (json, expected) in cases {
            XCTAssertThrowsError(try Storyboard.parse(json), json) { error in
                let message = (error as? StoryboardError)?.description ?? "\(error)"
                XCTAssertTrue(message.hasPrefix(expected) || message.contains(expected),
                              "for \(json)\n got: \(message)\n want: \(expected)")
            }
        }
    }

    func testTapXAndSideShortForm() throws {
        let board = try Storyboard.parse(#"{"stories": [{"items": [{"uri": "a"}]}], "script": [{"at": 1, "action": "tap", "x": 0.2}, {"at": 2, "action": "tap", "side": "left"}]}"#)
        XCTAssertEqual(board.script.map(\.gesture), [.tap(x: 0.2), .tap(x: 0)])
    }
}
