import Compositor
import Foundation
import XCTest

/// What a new user ran into with hand-written commands (issue "What a new user ran into"):
/// each case ran quietly or said nothing useful before.
final class NewUserTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// A range past the render is a usage error naming the frame count; it used to render 0
    /// frames and exit 0, or cut the range silently.
    func testFramesOutsideTheRenderAreAUsageError() throws {
        for range in ["200..300", "85..200"] {
            let result = try cli.run(["render", cli.demo, "--duration", "3", "--frames", range, "--output", folder.path + "/r"])
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains("the render has 90 frames"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path + "/r/frame-000085.png"))
    }

    /// `--frames 5`, `5..` and `..10` are accepted.
    func testFramesShortForms() throws {
        for (range, first, count) in [("5", 5, 1), ("85..", 85, 5), ("..3", 0, 3)] {
            let out = folder.path + "/short-\(first)"
            let result = try cli.run(["render", cli.demo, "--duration", "3", "--size", "72x128", "--frames", range,
                                      "--output", out, "--quiet"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let frames = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix("frame-") }.sorted()
            XCTAssertEqual(frames.count, count, range)
            XCTAssertEqual(frames.first, String(format: "frame-%06d.png", first), range)
        }
    }

    /// `--mp4 x.avi` used to write an MP4 under that name.
    func testAClipNamedOtherThanMP4IsRefused() throws {
        let result = try cli.run(["render", cli.demo, "--mp4", folder.path + "/clip.avi", "--output", folder.path + "/r"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("--mp4 \(folder.path)/clip.avi: the clip is an MP4 file"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path + "/clip.avi"))
    }

    /// Usage errors say why.
    func testASizeOutOfBoundsSaysWhy() throws {
        for command in [["render"], ["still", "--page", "0"]] {
            let result = try cli.run(command + [cli.demo, "--size", "10x10", "--output", folder.path + "/s.png"])
            XCTAssertEqual(result.status, 2)
            XCTAssertTrue(result.stderr.contains("--size 10x10: each side must be 16 to 8192"), result.stderr)
        }
    }

    func testHelpForACommandThatDoesNotExistIsAnError() throws {
        let result = try cli.run(["help", "nonexist"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("no command \"nonexist\""), result.stderr)
        XCTAssertEqual(try cli.run(["help", "check"]).status, 0)
    }

    func testCheckOfAnEmptyTraceSaysSo() throws {
        let path = folder.path + "/empty.jsonl"
        FileManager.default.createFile(atPath: path, contents: Data())
        let result = try cli.run(["check", path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stdout.contains("the trace is empty"), result.stdout)
    }

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

    /// With --quiet nothing reaches the terminal, x264's own log lines included (they leaked
    /// when the encoder opened before FFmpeg's log level was set).
    func testQuietMeansQuietWithAClip() throws {
        for attempt in 1...3 {
            let result = try cli.run(["render", cli.demo, "--duration", "0.5", "--size", "90x160", "--quiet",
                                      "--mp4", folder.path + "/q\(attempt).mp4", "--output", folder.path + "/q\(attempt)"])
            XCTAssertEqual(result.status, 0)
            XCTAssertEqual(result.stderr, "", "attempt \(attempt)")
            XCTAssertEqual(result.stdout, "", "attempt \(attempt)")
        }
    }

    /// SIGINT or SIGTERM mid-render: it stops cleanly, exits 130 or 143, leaves no temporary
    /// file, keeps a whole MP4 of what was drawn, and summary.json says it was interrupted.
    func testASignalStopsTheRenderCleanly() throws {
        for (signal, status) in [(SIGTERM, Int32(143)), (SIGINT, Int32(130))] {
            let out = folder.path + "/signal-\(signal)"
            let clip = folder.path + "/signal-\(signal).mp4"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: TestPrograms.renderStories)
            process.arguments = ["render", cli.demo, "--size", "180x320", "--output", out, "--mp4", clip, "--quiet"]
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            while !FileManager.default.fileExists(atPath: out + "/frame-000030.png") && Date() < deadline && process.isRunning {
                usleep(20_000)
            }
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, status)
            let names = try FileManager.default.contentsOfDirectory(atPath: out)
            XCTAssertEqual(names.filter { $0.contains(".tmp") || $0.hasPrefix(".") }, [], "no temporary file in the output")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp") }, [])
            let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/summary.json"))) as! [String: Any]
            XCTAssertEqual(summary["interrupted"] as? Bool, true)
            let frames = try XCTUnwrap(summary["frames"] as? Int)
            XCTAssertEqual(names.filter { $0.hasPrefix("frame-") }.count, frames)
            XCTAssertLessThan(frames, 435, "it stopped early")
            XCTAssertEqual(try cli.run(["check", out + "/lifecycle.jsonl"]).status, 0)
            XCTAssertTrue(FileManager.default.fileExists(atPath: clip), "a whole clip of what was drawn")
        }
    }

    /// A signal after the last frame, while a GIF's palette pass and a WebP are finished: found
    /// by an audit, the render went on to write them whole, then exited 130 and said summary.json
    /// held "interrupted": true, which it did not. Nothing was cut short, and it says so now.
    func testASignalAfterTheLastFrameSaysNothingWasCutShort() throws {
        let out = folder.path + "/late-signal"
        let gif = folder.path + "/late-signal.gif", webp = folder.path + "/late-signal.webp"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPrograms.renderStories)
        process.arguments = ["render", cli.demo, "--size", "180x320", "--output", out, "--gif", gif, "--webp", webp, "--quiet"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: out + "/frame-000434.png") && Date() < deadline && process.isRunning {
            usleep(5_000)
        }
        XCTAssertTrue(process.isRunning, "the clips are still being finished after the last frame")
        kill(process.processIdentifier, SIGINT)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, said)
        XCTAssertTrue(said.contains("came after the last frame"), said)
        XCTAssertFalse(said.contains("interrupted:"), said)
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/summary.json"))) as! [String: Any]
        XCTAssertNotEqual(summary["interrupted"] as? Bool, true)
        XCTAssertEqual(summary["frames"] as? Int, 435)
        for clip in [gif, webp] { XCTAssertTrue(FileManager.default.fileExists(atPath: clip), "\(clip) is whole") }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp") }, [])
    }

    /// A still draws the overlay a render's frame has at that page and time (the progress
    /// segments at that media time), unless --no-overlay; before, both files were identical.
    func testAStillDrawsTheOverlayOfTheFrameItShows() throws {
        let board = folder.file("one.json")
        FileManager.default.createFile(atPath: board, contents: Data("""
        {"canvas": {"width": 180, "height": 320, "fps": 10}, "duration": 2,
         "stories": [{"id": "a", "items": [{"uri": "\(CommandLineTests.packageRoot.path)/samples/beach.mp4"}, {"uri": "\(CommandLineTests.packageRoot.path)/samples/sunset.jpg"}]}]}
        """.utf8))
        XCTAssertEqual(try cli.run(["render", board, "--output", folder.file("r"), "--quiet"]).status, 0)
        XCTAssertEqual(try cli.run(["still", board, "--page", "0", "--time", "1.5", "--output", folder.file("with.png")]).status, 0)
        XCTAssertEqual(try cli.run(["still", board, "--page", "0", "--time", "1.5", "--no-overlay",
                                    "--output", folder.file("without.png")]).status, 0)
        let frame = try RGBAImage(contentsOfPNG: folder.file("r/frame-000015.png"))
        let with = try RGBAImage(contentsOfPNG: folder.file("with.png"))
        let without = try RGBAImage(contentsOfPNG: folder.file("without.png"))
        var sameAsFrame = 0, differsWithout = 0, total = 0
        for y in 0..<12 {
            for x in 0..<180 {
                total += 1
                if with[x, y].distance(to: frame[x, y]) <= 2 { sameAsFrame += 1 }
                if with[x, y].distance(to: without[x, y]) > 30 { differsWithout += 1 }
            }
        }
        XCTAssertEqual(sameAsFrame, total, "the segments row is the render's")
        XCTAssertGreaterThan(differsWithout, 50, "--no-overlay leaves the segments out")
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

    /// --progress json gives the frame count from its first line, even for a storyboard without
    /// a duration, and ends with a done line.
    func testProgressJSONKnowsTheCountAndSaysWhenDone() throws {
        let result = try cli.run(["render", cli.demo, "--size", "72x128", "--fps", "5", "--progress", "json",
                                  "--output", folder.file("p")])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stderr.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let counted = try XCTUnwrap(try cli.run(["frames", cli.demo, "--fps", "5"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertEqual((lines.first?["of"] as? Int).map(String.init), counted, "the count, on the first line")
        let done = try XCTUnwrap(lines.last)
        XCTAssertEqual(done["done"] as? Bool, true)
        XCTAssertEqual((done["frames"] as? Int).map(String.init), counted)
        XCTAssertEqual(done["interrupted"] as? Bool, false)
    }
}
