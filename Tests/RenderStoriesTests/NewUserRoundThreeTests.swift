import Foundation
import XCTest

/// What a new user ran into, round three (the issue's numbered items that these cover).
final class NewUserRoundThreeTests: XCTestCase {
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

    /// 16. `still --time -1` says the time must be ≥ 0, not that a value is missing.
    func testANegativeStillTimeSaysWhatItMustBe() throws {
        let result = try cli.run(["still", cli.demo, "--page", "0", "--time", "-1", "--output", folder.file("s.png")])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("--time must be ≥ 0"), result.stderr)
        XCTAssertFalse(result.stderr.contains("Missing value"), result.stderr)
    }

    /// 17. An empty `--frames` range is render's usage error, with render's usage.
    func testAnEmptyFrameRangeShowsRendersUsage() throws {
        let result = try cli.run(["render", cli.demo, "--frames", "5..2", "--output", folder.file("r")])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("the range is empty"), result.stderr)
        XCTAssertTrue(result.stderr.contains("render-stories render"), "render's usage: \(result.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("r")), "nothing was created")
    }

    /// A negative `--frames` bound says frames are numbered from 0, not that a value is missing
    /// (argument-parser took `-1..3` for a flag).
    func testANegativeFrameRangeSaysFramesStartAtZero() throws {
        for range in ["-1..3", "-2", "..-1"] {
            let result = try cli.run(["render", cli.demo, "--frames", range, "--output", folder.file("r")])
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains("--frames \(range): frames are numbered from 0"), result.stderr)
            XCTAssertFalse(result.stderr.contains("Missing value"), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("r")), "nothing was created")
        }
    }

    /// 18. `--version` prints the tool's version and the FFmpeg, libpng and FreeType it runs with.
    func testVersionNamesTheLibraries() throws {
        let result = try cli.run(["--version"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.first?.hasPrefix("render-stories ") == true, result.stdout)
        for (name, pattern) in [("FFmpeg", #"^FFmpeg \d+\.\d+"#), ("libpng", #"^libpng \d+\.\d+\.\d+$"#),
                                ("FreeType", #"^FreeType [1-9]\d*\.\d+\.\d+$"#)] {
            XCTAssertTrue(lines.contains { $0.range(of: pattern, options: .regularExpression) != nil }, "\(name): \(result.stdout)")
        }
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
