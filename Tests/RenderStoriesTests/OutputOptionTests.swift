import Compositor
import Foundation
import XCTest

/// Progress and picture outputs, as users call them.
final class OutputOptionTests: XCTestCase {
    let cli = CommandLineRunner()

    func testProgressJSONIsOneObjectPerLineOnStderr() throws {
        let folder = ScratchFolder()
        let out = folder.file("out")
        let result = try cli.run(["render", cli.demo, "--output", out, "--size", "72x128", "--fps", "10", "--duration", "2",
                                  "--progress", "json"])
        XCTAssertEqual(result.status, 0)
        let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }
        XCTAssertFalse(lines.isEmpty, result.stderr)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
        XCTAssertEqual(Set(first.keys), ["frame", "of", "fps", "eta_s"])
        XCTAssertEqual(first["of"] as? Int, 20)
    }

    func testQuietPrintsNothing() throws {
        let folder = ScratchFolder()
        let out = folder.file("out")
        let result = try cli.run(["render", cli.demo, "--output", out, "--size", "72x128", "--fps", "5", "--duration", "1", "--quiet"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stdout + result.stderr, "")
    }

    /// A trace that is missing, or a file that holds no lifecycle event (a storyboard given by
    /// mistake, an empty file), is a usage error (2) that says so, and no picture is written.
    func testTimelineOfSomethingThatIsNotATraceExitsTwo() throws {
        let folder = ScratchFolder()
        let board = folder.write("board.json", Array(#"{"stories": [{"items": [{"uri": "a.jpg"}]}]}"#.utf8))
        let empty = folder.write("empty.jsonl", [])
        for (input, message) in [(board, "holds no lifecycle events"), (empty, "holds no lifecycle events"),
                                 (folder.file("missing.jsonl"), "missing.jsonl")] {
            let picture = folder.file("t.png")
            let result = try cli.run(["timeline", input, "--output", picture])
            XCTAssertEqual(result.status, 2, "\(input): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: picture))
        }
    }

    func testTimelineCommandAndRenderOptionWritePictures() throws {
        let folder = ScratchFolder()
        let out = folder.file("out")
        let render = try cli.run(["render", cli.demo, "--output", out, "--size", "72x128", "--fps", "5", "--duration", "6",
                                  "--timeline", out + "/t.png", "--contact-sheet", out + "/s.png", "--sheet-frames", "4"])
        XCTAssertEqual(render.status, 0, render.stderr)
        XCTAssertGreaterThan(try RGBAImage(contentsOfPNG: out + "/t.png").width, 300)
        XCTAssertEqual(try RGBAImage(contentsOfPNG: out + "/s.png").width, 6 * (72 + 8) + 8)
        let timeline = try cli.run(["timeline", out + "/lifecycle.jsonl", "--output", out + "/t2.png"])
        XCTAssertEqual(timeline.status, 0, timeline.stderr)
        XCTAssertEqual(try RGBAImage(contentsOfPNG: out + "/t2.png"), try RGBAImage(contentsOfPNG: out + "/t.png"))
    }
}

/// scripts/render-sharded.sh: shards run with GNU parallel, joined into one folder.
final class ShardedScriptTests: XCTestCase {
    func testJoinedShardsEqualAFullRender() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/parallel") else {
            throw XCTSkip("GNU parallel is not installed (make test installs it)")
        }
        let cli = CommandLineRunner()
        let root = CommandLineTests.packageRoot.path
        let folder = ScratchFolder()
        let scratch = folder.path
        let options = ["--size", "90x160", "--fps", "8"]
        let full = try cli.run(["render", cli.demo, "--output", scratch + "/full", "--quiet"] + options)
        XCTAssertEqual(full.status, 0, full.stderr)
        let script = Process()
        script.executableURL = URL(fileURLWithPath: root + "/scripts/render-sharded.sh")
        script.arguments = [cli.demo, "3", scratch + "/joined", "--mp4", scratch + "/joined.mp4"] + options
        script.environment = ProcessInfo.processInfo.environment.merging(["RENDER_STORIES": TestPrograms.renderStories]) { $1 }
        let output = Pipe()
        script.standardOutput = output
        script.standardError = output
        try script.run()
        let log = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        script.waitUntilExit()
        XCTAssertEqual(script.terminationStatus, 0, log)
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch + "/full").filter { $0.hasPrefix("frame-") }.sorted()
        let joined = try FileManager.default.contentsOfDirectory(atPath: scratch + "/joined").filter { $0.hasPrefix("frame-") }.sorted()
        XCTAssertEqual(joined, names)
        XCTAssertEqual(names.count, 116)
        for name in names {
            XCTAssertEqual(FileManager.default.contents(atPath: scratch + "/full/" + name),
                           FileManager.default.contents(atPath: scratch + "/joined/" + name), name)
        }
        // The joined clip: every frame, one keyframe a second, as one file.
        XCTAssertEqual(try videoPacketCount(scratch + "/joined.mp4"), "116")
        let traces = try FileManager.default.contentsOfDirectory(atPath: scratch + "/joined/shards").sorted()
        XCTAssertEqual(traces, ["00-lifecycle.jsonl", "01-lifecycle.jsonl", "02-lifecycle.jsonl"])
        for trace in traces {
            let check = try cli.run(["check", "--shard", scratch + "/joined/shards/" + trace])
            XCTAssertEqual(check.status, 0, check.stdout)
        }
        // One merged trace beside the frames, equal to the full render's but for wall-clock
        // times, which passes plain check; and one summary with every frame.
        func timeless(_ path: String) throws -> [String] {
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
                $0.replacingOccurrences(of: #""wall": [0-9.]+, "#, with: "", options: .regularExpression)
                    .replacingOccurrences(of: #", "open_ms": .*(?=\})"#, with: "", options: .regularExpression)
            }
        }
        XCTAssertEqual(try timeless(scratch + "/joined/lifecycle.jsonl"), try timeless(scratch + "/full/lifecycle.jsonl"))
        let check = try cli.run(["check", scratch + "/joined/lifecycle.jsonl"])
        XCTAssertEqual(check.status, 0, check.stdout)
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch + "/joined/summary.json"))) as! [String: Any]
        XCTAssertEqual(summary["frames"] as? Int, 116)
        XCTAssertNil(summary["frame_range"], "the merged summary is a whole render's")
        // Merged shards get one report page, as a whole render does.
        let report = try cli.run(["report", scratch + "/joined"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let page = try String(contentsOfFile: scratch + "/joined/report.html", encoding: .utf8)
        XCTAssertTrue(page.contains("frame-000115.png") || page.contains("\"frames\": 116") || page.contains("116"), "the page knows every frame")
    }

    /// `render-stories frames` takes render's options, in both spellings, so a script can pass
    /// its own through (it used to understand only `--duration 1`).
    func testFramesTakesRendersOptions() throws {
        let cli = CommandLineRunner()
        for spelling in [["--duration=1"], ["--duration", "1"]] {
            let result = try cli.run(["frames", cli.demo] + spelling + ["--size", "90x160", "--png-level", "3"])
            XCTAssertEqual(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "30", result.stderr)
        }
    }
}
