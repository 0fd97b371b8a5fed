import Foundation
import XCTest

/// A swipe's or drag's own `transition` (style and axis) over the storyboard's, for that turn
/// only, seen in the render's frames.jsonl: the faces stacked for a vertical turn, side by side
/// for a horizontal one.
final class GestureTransitionTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// Three stories, horizontal cube turns; the first swipe turns vertically, the second as the
    /// storyboard says, then a drag back turns vertically again until the pages rest.
    func testEachTurnIsDrawnInItsOwnTransition() throws {
        for name in ["one", "two", "three"] {
            try FileManager.default.copyItem(atPath: CommandLineTests.packageRoot.appendingPathComponent("samples/home.jpg").path,
                                             toPath: folder.file(name + ".jpg"))
        }
        let board = folder.write("board.json", Array(#"""
        {"canvas": {"width": 90, "height": 160, "fps": 10}, "duration": 4,
         "transition": {"style": "cube", "axis": "horizontal", "duration": 0.5},
         "stories": [{"id": "one", "items": [{"uri": "one.jpg", "duration": 9}]},
                     {"id": "two", "items": [{"uri": "two.jpg", "duration": 9}]},
                     {"id": "three", "items": [{"uri": "three.jpg", "duration": 9}]}],
         "script": [{"at": 0.5, "action": "swipe", "direction": "next", "transition": {"axis": "vertical"}},
                    {"at": 1.5, "action": "swipe", "direction": "next"},
                    {"at": 2.5, "action": "drag", "to": -0.5, "over": 0.3, "transition": {"axis": "vertical"}},
                    {"at": 3.0, "action": "release"}]}
        """#.utf8))
        let out = folder.file("out")
        let result = try cli.run(["render", board, "--no-overlay", "--quiet", "--output", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let text = try String(contentsOfFile: out + "/frames.jsonl", encoding: .utf8)
        let records = try text.split(separator: "\n").map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        /// How frame `n`'s two faces meet: "vertical" when the second lies below the first.
        func arrangement(_ n: Int) throws -> String {
            let faces = try XCTUnwrap(records[n]["faces"] as? [[String: Any]])
            XCTAssertEqual(faces.count, 2, "frame \(n) is mid-turn")
            let first = try XCTUnwrap(faces[0]["quad"] as? [[Double]]), second = try XCTUnwrap(faces[1]["quad"] as? [[Double]])
            return abs(first[3][1] - second[0][1]) < 0.05 && abs(first[3][0] - second[0][0]) < 0.05 ? "vertical"
                : abs(first[1][0] - second[0][0]) < 0.05 ? "horizontal" : "neither"
        }
        XCTAssertEqual(try arrangement(7), "vertical", "the first swipe's own axis")
        XCTAssertEqual(try arrangement(17), "horizontal", "the storyboard's")
        XCTAssertEqual(try arrangement(27), "vertical", "the drag's own axis, while the finger holds the pages")
        XCTAssertEqual(records[22]["page"] as? Double, 2, "at rest between the turns")
    }
}
