import Compositor
import Foundation
import XCTest

/// What a render refuses before its first frame: outputs it cannot write, a missing local file,
/// and every mistake of a storyboard, named in one run.
final class RefusedBeforeRenderingTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// Every output path is checked before any work: a contact sheet, timeline or MP4 whose
    /// folder cannot be made (a file is in the way) fails at once, naming the path given, and
    /// leaves no output folder.
    func testUnwritableOutputsFailBeforeAnyWork() throws {
        let blocker = folder.path + "/blocker"
        FileManager.default.createFile(atPath: blocker, contents: Data())
        for (flag, path) in [("--contact-sheet", blocker + "/dir/s.png"), ("--timeline", blocker + "/dir/t.png"),
                             ("--mp4", blocker + "/dir/c.mp4")] {
            let out = folder.path + "/out-\(flag.dropFirst(2))"
            let started = Date()
            let result = try cli.run(["render", cli.demo, flag, path, "--output", out])
            XCTAssertEqual(result.status, 1, flag)
            XCTAssertTrue(result.stderr.contains(path) && result.stderr.contains("is a file, not a folder"), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "\(flag): no output folder is left")
            XCTAssertLessThan(Date().timeIntervalSince(started), 5, "before the render, not after it")
        }
    }

    /// A local file that does not exist is named before rendering, with its JSON path and its
    /// resolved, normalised path; the story still fails with its card and the render goes on;
    /// with --strict the render stops before its first frame, exit 2.
    func testAMissingLocalFileIsNamedBeforeRendering() throws {
        let board = folder.file("typo.json")
        FileManager.default.createFile(atPath: board, contents: Data("""
        {"canvas": {"width": 72, "height": 128, "fps": 5}, "duration": 1,
         "stories": [{"id": "a", "items": [{"uri": "clips/../nope.mp4"}]},
                     {"id": "b", "items": [{"uri": "\(CommandLineTests.packageRoot.path)/samples/sunset.jpg"}]}]}
        """.utf8))
        let resolved = folder.file("nope.mp4")
        let result = try cli.run(["render", board, "--output", folder.file("out")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("warning: stories[0].items[0].uri: no such file \(resolved)\n"), result.stderr)
        let trace = try String(contentsOfFile: folder.file("out/lifecycle.jsonl"), encoding: .utf8)
        XCTAssertTrue(trace.contains("cannot open \(resolved)"), "the trace names the normalised path: \(trace)")
        let strict = try cli.run(["render", board, "--output", folder.file("strict"), "--strict"])
        XCTAssertEqual(strict.status, 2)
        XCTAssertTrue(strict.stderr.contains("error: stories[0].items[0].uri: no such file \(resolved)"), strict.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("strict")), "stopped before the first frame")
    }

    /// Every mistake of a hand-written storyboard is on stderr after one run, a line each
    /// with its JSON path, and the exit code is 2; before, only the first was named.
    func testEveryStoryboardErrorIsNamedInOneRun() throws {
        let board = folder.file("mistakes.json")
        FileManager.default.createFile(atPath: board, contents: Data("""
        {"canvas": {"fps": 500}, "duration": 1,
         "stories": [{"id": "a", "items": [{"url": "a.mp4"}]}, {"id": "b", "items": [{"uri": "b.mp4", "duration": "2"}]}],
         "script": [{"at": 0.5, "action": "swipe", "direction": "sideways"}]}
        """.utf8))
        let result = try cli.run(["render", board, "--output", folder.file("out")])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n"), [
            "error: canvas.fps: 500 is out of range (1 to 240)",
            #"error: stories[0].items[0].url: unknown key; did you mean "uri"?"#,
            "error: stories[1].items[0].duration: expected a number, got a string",
            #"error: script[0].direction: "sideways" is not one of "next", "previous""#,
        ])
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("out")))
    }
}
