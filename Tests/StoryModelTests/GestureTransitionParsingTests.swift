import Compositor
import StoryModel
import StoryPlayerTestSupport
import XCTest

/// A swipe's or drag's own `transition` (style and axis), and the older `style` on a swipe;
/// a bad key in it is named by its JSON path.
final class GestureTransitionParsingTests: XCTestCase {
    func testAGesturesTransitionIsParsed() throws {
        let board = try Storyboard.parse(#"""
        {"stories": [{"id": "a", "items": [{"uri": "a.png"}]}, {"id": "b", "items": [{"uri": "b.png"}]}],
         "script": [{"at": 1, "action": "swipe", "direction": "next", "transition": {"style": "cube", "axis": "vertical"}},
                    {"at": 2, "action": "swipe", "direction": "previous", "style": "slide"},
                    {"at": 3, "action": "drag", "to": 0.4, "over": 0.2, "transition": {"axis": "vertical"}},
                    {"at": 4, "action": "release"}]}
        """#)
        XCTAssertEqual(board.script[0].gesture, .swipe(.next, transition: GestureTransition(style: .cube, axis: .vertical)))
        XCTAssertEqual(board.script[1].gesture, .swipe(.previous, transition: GestureTransition(style: .slide)))
        XCTAssertEqual(board.script[2].gesture, .drag(pages: 0.4, seconds: 0.2, transition: GestureTransition(axis: .vertical)))
        XCTAssertThrowsError(try Storyboard.parse(#"""
        {"stories": [{"id": "a", "items": [{"uri": "a.png"}]}],
         "script": [{"at": 1, "action": "swipe", "direction": "next", "transition": {"axis": "diagonal", "speed": 2}}]}
        """#)) { error in
            XCTAssertTrue("\(error)".contains("script[0].transition.axis"), "\(error)")
            XCTAssertTrue("\(error)".contains("script[0].transition.speed"), "\(error)")
        }
    }
}
