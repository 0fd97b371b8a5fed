import Foundation
import XCTest

/// The progress bar, drawn only on a terminal: run under `script`, which gives the render one.
final class RenderProgressLineTests: XCTestCase {
    let folder = ScratchFolder()

    /// 13. A storyboard without "duration" ends with its last story: the bar has the frame
    /// count all the same (counted ahead, as --progress json and `frames` count it), and an ETA.
    func testTheBarHasATotalAndAnETAWithoutADuration() throws {
        let photo = CommandLineTests.packageRoot.appendingPathComponent("samples/sunset.jpg").path
        let board = folder.file("board.json")
        try Data(#"{"canvas": {"width": 90, "height": 160, "fps": 10}, "stories": [{"id": "a", "items": [{"uri": "\#(photo)", "duration": 2}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: board))
        let command = [TestPrograms.renderStories, "render", board, "--output", folder.file("out"), "--progress", "bar"]
            .map { "'\($0)'" }.joined(separator: " ")
        let outcome = try ExternalProgram.outcome("/usr/bin/script", ["-qefc", command, "/dev/null"], in: folder.path)
        let said = String(decoding: outcome.stdout, as: UTF8.self)
        XCTAssertEqual(outcome.status, 0, said)
        XCTAssertNotNil(said.range(of: #"\] \d+/20  [\d.]+ fps  ETA \d+s"#, options: .regularExpression), said)
    }
}
