import Foundation
import XCTest

/// `--set name=value` on the commands that read a storyboard: the variant it makes is the one a
/// storyboard written with those values would be, frame for frame, and a mistake is a
/// storyboard error (exit 2) naming the parameter's JSON path.
final class ParameterCommandTests: XCTestCase {
    let cli = CommandLineRunner()

    func testASetVariantRendersTheFramesOfTheBoardWrittenOut() throws {
        let folder = ScratchFolder()
        for name in ["sunset.jpg", "home.jpg"] {
            try FileManager.default.copyItem(atPath: CommandLineTests.packageRoot.appendingPathComponent("samples/\(name)").path,
                                             toPath: folder.file(name))
        }
        try Data("""
            {"parameters": {"photo": {"type": "file", "default": "sunset.jpg"},
                            "length": {"type": "number", "default": 1, "min": 0.5, "max": 5},
                            "accent": {"type": "colour", "default": "#ff8800"}},
             "canvas": {"width": 90, "height": 160, "fps": 10, "background": "{{accent}}"},
             "stories": [{"id": "a", "items": [{"uri": "{{photo}}", "duration": "{{length}}"}]},
                         {"id": "b", "items": [{"uri": "sunset.jpg", "duration": 0.5}]}]}
            """.utf8).write(to: URL(fileURLWithPath: folder.file("board.json")))
        try Data("""
            {"canvas": {"width": 90, "height": 160, "fps": 10, "background": "#123456"},
             "stories": [{"id": "a", "items": [{"uri": "home.jpg", "duration": 1.5}]},
                         {"id": "b", "items": [{"uri": "sunset.jpg", "duration": 0.5}]}]}
            """.utf8).write(to: URL(fileURLWithPath: folder.file("written.json")))
        let set = try cli.run(["render", folder.file("board.json"), "--set", "photo=home.jpg", "--set", "length=1.5",
                               "--set", "accent=#123456", "--output", folder.file("set"), "--quiet"])
        XCTAssertEqual(set.status, 0, set.stderr)
        let written = try cli.run(["render", folder.file("written.json"), "--output", folder.file("written"), "--quiet"])
        XCTAssertEqual(written.status, 0, written.stderr)
        let frames = try FileManager.default.contentsOfDirectory(atPath: folder.file("written")).filter { $0.hasPrefix("frame-") }.sorted()
        XCTAssertGreaterThan(frames.count, 15)
        for frame in frames {
            XCTAssertEqual(FileManager.default.contents(atPath: folder.file("set/" + frame)),
                           FileManager.default.contents(atPath: folder.file("written/" + frame)), frame)
        }
        // The defaults are another variant: other frames.
        let defaults = try cli.run(["render", folder.file("board.json"), "--output", folder.file("defaults"), "--quiet"])
        XCTAssertEqual(defaults.status, 0, defaults.stderr)
        XCTAssertNotEqual(FileManager.default.contents(atPath: folder.file("defaults/frame-000000.png")),
                          FileManager.default.contents(atPath: folder.file("set/frame-000000.png")))

        // still and frames take the same values.
        let still = try cli.run(["still", folder.file("board.json"), "--set", "photo=home.jpg", "--page", "0", "--time", "0.5",
                                 "--output", folder.file("still.png")])
        XCTAssertEqual(still.status, 0, still.stderr)
        let longer = try cli.run(["frames", folder.file("board.json"), "--set", "length=3"])
        let shorter = try cli.run(["frames", folder.file("board.json")])
        XCTAssertEqual(longer.status, 0, longer.stderr)
        XCTAssertNotEqual(longer.stdout, shorter.stdout, "frames counts the variant's 3 s, not the default's 1 s")
    }

    func testAMistakeIsAStoryboardErrorWithItsPath() throws {
        let folder = ScratchFolder()
        try Data("""
            {"parameters": {"length": {"type": "number", "default": 1, "max": 5}},
             "stories": [{"id": "a", "items": [{"uri": "missing.jpg", "duration": "{{length}}"}]}]}
            """.utf8).write(to: URL(fileURLWithPath: folder.file("board.json")))
        for (set, said) in [("length=9", "parameters.length: length=9: 9 is above max 5"),
                            ("length=x", "parameters.length: length=x: \"x\" is not a number"),
                            ("size=2", "parameters: no parameter size is declared; the storyboard declares length")] {
            let outcome = try cli.run(["render", folder.file("board.json"), "--set", set, "--output", folder.file("out")])
            XCTAssertEqual(outcome.status, 2, set)
            XCTAssertTrue(outcome.stderr.contains(said), "\(set): \(outcome.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("out/frame-000000.png")), "no frame before the error")
        }
        let usage = try cli.run(["render", folder.file("board.json"), "--set", "length"])
        XCTAssertEqual(usage.status, 2, usage.stderr)
        XCTAssertTrue(usage.stderr.contains("--set length: give name=value"), usage.stderr)
    }
}
