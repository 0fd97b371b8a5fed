import Foundation
import XCTest

/// A storyboard's mistakes as the CLI names them: every mistake of an action listed, a file that
/// cannot be read said why (a BOM accepted), and `present` without `from` not a mistake.
final class StoryboardMistakeCommandTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// 12. `"present": {"duration": 0.5}` without `from` opens from the centre bubble: no error
    /// about a missing `from`, and `duration` is known.
    func testPresentWithoutFromOpensFromTheCentre() throws {
        let board = folder.file("present.json")
        let clip = CommandLineTests.packageRoot.appendingPathComponent("samples/beach.mp4").path
        try Data(#"{"present": {"duration": 0.5}, "duration": 1, "canvas": {"width": 72, "height": 128, "fps": 10}, "stories": [{"items": [{"uri": "\#(clip)"}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: board))
        let result = try cli.run(["render", board, "--output", folder.file("present"), "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("present.from"), result.stderr)
    }

    /// 13. An action with a bad `at` and an unknown name reports both, and suggests the nearest name.
    func testEveryMistakeOfAnActionIsListed() throws {
        let board = folder.file("script.json")
        try Data(#"{"stories": [{"items": [{"uri": "a.mp4"}]}], "script": [{"at": "2", "action": "tapp"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: board))
        let result = try cli.run(["render", board, "--output", folder.file("script")])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("script[0].at"), result.stderr)
        XCTAssertTrue(result.stderr.contains(#"script[0].action: unknown action "tapp"; did you mean "tap"?"#), result.stderr)
    }

    /// 14. Reading errors say why, name the file, and a UTF-8 byte order mark is accepted.
    func testReadingErrorsSayWhyAndABOMIsAccepted() throws {
        let missing = try cli.run(["render", folder.file("nope.json"), "--output", folder.file("o")])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("nope.json: no such file"), missing.stderr)
        let asFolder = try cli.run(["render", folder.path, "--output", folder.file("o")])
        XCTAssertEqual(asFolder.status, 2)
        XCTAssertTrue(asFolder.stderr.contains("it is a folder"), asFolder.stderr)
        let array = folder.file("array.json")
        try Data("[1, 2]".utf8).write(to: URL(fileURLWithPath: array))
        let arrayResult = try cli.run(["render", array, "--output", folder.file("o")])
        XCTAssertEqual(arrayResult.status, 2)
        XCTAssertTrue(arrayResult.stderr.contains("array.json:"), "names the file: \(arrayResult.stderr)")
        let clip = CommandLineTests.packageRoot.appendingPathComponent("samples/beach.mp4").path
        let bom = folder.file("bom.json")
        try Data([0xEF, 0xBB, 0xBF] + Array(#"{"duration": 0.2, "canvas": {"width": 72, "height": 128, "fps": 10}, "stories": [{"items": [{"uri": "\#(clip)"}]}]}"#.utf8))
            .write(to: URL(fileURLWithPath: bom))
        let bomResult = try cli.run(["render", bom, "--output", folder.file("bom"), "--quiet"])
        XCTAssertEqual(bomResult.status, 0, bomResult.stderr)
    }
}
