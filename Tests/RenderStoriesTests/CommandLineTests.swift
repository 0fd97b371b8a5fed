import Compositor
import Foundation
import XCTest

/// The `render-stories` executable as users run it: exit codes, messages, files.
final class CommandLineTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The executable SwiftPM built beside this test bundle.
    static var executable: String {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [products, products.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("render-stories").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return packageRoot.appendingPathComponent(".build/debug/render-stories").path
    }

    typealias Outcome = CommandLineRunner.Outcome

    func run(_ arguments: [String], in folder: String? = nil) throws -> Outcome {
        try CommandLineRunner().run(arguments, in: folder)
    }

    var scratch: String!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: scratch)
    }

    func write(_ name: String, _ text: String) -> String {
        let path = (scratch as NSString).appendingPathComponent(name)
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    var demo: String { CommandLineRunner().demo }

    // MARK: - render

    func testRenderWritesFramesTraceAndSummary() throws {
        let out = scratch + "/out"
        // The first 5.2 s include the auto-advance cube turn from beach to city (4.5 s to 5.1 s).
        let result = try run(["render", demo, "--output", out, "--size", "72x128", "--fps", "5", "--duration", "5.2"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/frame-000025.png"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/frame-000026.png"))
        let frame = try RGBAImage(contentsOfPNG: out + "/frame-000000.png")
        XCTAssertEqual([frame.width, frame.height], [72, 128])
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/summary.json"))) as! [String: Any]
        XCTAssertEqual(summary["frames"] as? Int, 26)
        XCTAssertNotNil(summary["wall_seconds"] as? Double)
        XCTAssertNotNil(summary["fps"])
        XCTAssertEqual(summary["peak_alive_players"] as? Int, 2)
        let stories = summary["stories"] as! [[String: Any]]
        XCTAssertEqual(stories.first?["id"] as? String, "beach")
        XCTAssertEqual(stories.first?["plays"] as? Int, 2, "its video item, then its photo item")
        XCTAssertEqual(stories.first?["failures"] as? Int, 0)
        let check = try run(["check", out + "/lifecycle.jsonl"])
        XCTAssertEqual(check.status, 0, check.stdout)
    }

    func testTheDefaultSubcommandIsRender() throws {
        let out = scratch + "/default"
        let result = try run([demo, "--output", out, "--size", "36x64", "--fps", "2", "--duration", "1"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/frame-000001.png"))
    }

    func testBrokenStoryboardExitsTwoNamingThePath() throws {
        let board = write("broken.json", #"{"stories": [{"id": "a", "items": [{"uri": "a.mp4"}]}, {"id": "b", "items": [{"duration": 3}]}]}"#)
        let result = try run(["render", board, "--output", scratch + "/never"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("stories[1].items[0].uri: missing"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/never"))
    }

    func testMissingStoryboardAndUsageErrorsExitTwo() throws {
        XCTAssertEqual(try run(["render", scratch + "/none.json"]).status, 2)
        XCTAssertEqual(try run(["render", demo, "--png-level", "12"]).status, 2)
        XCTAssertEqual(try run(["render", demo, "--size", "big"]).status, 2)
        XCTAssertEqual(try run(["still", demo, "--page", "9"]).status, 2)
        XCTAssertEqual(try run(["frobnicate"]).status, 2)
    }

    /// Overrides keep to the bounds the storyboard itself has: a duration of 1e300 used to reach
    /// the frame count and trap there.
    func testOverridesOutsideTheStoryboardBoundsAreUsageErrors() throws {
        let huge = try run(["render", demo, "--duration", "1e300", "--output", scratch + "/huge"])
        XCTAssertEqual(huge.status, 2, huge.stderr)
        XCTAssertTrue(huge.stderr.contains("--duration must be 0.001 to 86400 seconds"), huge.stderr)
        XCTAssertEqual(try run(["frames", demo, "--fps", "-5"]).status, 2)
        XCTAssertEqual(try run(["frames", demo, "--duration", "0"]).status, 2)
        XCTAssertEqual(try run(["render", demo, "--fps", "241"]).status, 2)
        XCTAssertEqual(try run(["render", demo, "--threads", "1000000"]).status, 2, "each thread is a frame in flight")
        XCTAssertEqual(try run(["probe", demo, "--open-timeout", "1e300"]).status, 2, "a wait no deadline can hold")
        XCTAssertEqual(try run(["probe", demo, "--read-timeout", "0"]).status, 2)
        let frames = try run(["frames", demo, "--fps", "10", "--duration", "2"])
        XCTAssertEqual(frames.status, 0, frames.stderr)
        XCTAssertEqual(frames.stdout, "20\n")
    }

    func testUnwritableOutputExitsOneBeforeAnyWork() throws {
        let blocker = write("file", "x")
        let result = try run(["render", demo, "--output", blocker + "/out"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("output folder"), result.stderr)
    }

    func testStrictExitsThreeWhenAStoryFailed() throws {
        let board = write("failing.json", #"{"canvas": {"width": 36, "height": 64, "fps": 2}, "duration": 1, "stories": [{"id": "gone", "items": [{"uri": "gone.mp4"}]}]}"#)
        let lenient = try run(["render", board, "--output", scratch + "/a"])
        XCTAssertEqual(lenient.status, 0)
        XCTAssertTrue(lenient.stderr.contains("story gone failed"), lenient.stderr)
        let strict = try run(["render", board, "--output", scratch + "/b", "--strict"])
        XCTAssertEqual(strict.status, 3)
        let summary = try String(contentsOfFile: scratch + "/b/summary.json", encoding: .utf8)
        XCTAssertTrue(summary.contains("No such file"), summary)
    }

    // MARK: - still

    func testStillRendersTheMiddleOfACubeTurn() throws {
        let path = scratch + "/mid.png"
        let result = try run(["still", demo, "--page", "0.5", "--time", "1.2", "--output", path, "--size", "180x320"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let image = try RGBAImage(contentsOfPNG: path)
        XCTAssertEqual([image.width, image.height], [180, 320])
        // The top corners are background (#101014): the faces recede there.
        XCTAssertEqual(image[1, 1], RGBAColor(red: 0x10, green: 0x10, blue: 0x14))
        XCTAssertNotEqual(image[90, 160], RGBAColor(red: 0x10, green: 0x10, blue: 0x14))
    }

    /// A time past the end shows each story's last picture; 1e300 used to trap turning the seek
    /// target into an Int64.
    func testStillAtAHugeTimeShowsTheLastPictures() throws {
        let huge = try run(["still", demo, "--page", "0.5", "--time", "1e300", "--output", scratch + "/huge.png", "--size", "36x64"])
        XCTAssertEqual(huge.status, 0, huge.stderr)
        let late = try run(["still", demo, "--page", "0.5", "--time", "99999", "--output", scratch + "/late.png", "--size", "36x64"])
        XCTAssertEqual(late.status, 0, late.stderr)
        XCTAssertEqual(try RGBAImage(contentsOfPNG: scratch + "/huge.png"), try RGBAImage(contentsOfPNG: scratch + "/late.png"))
    }

    // MARK: - check

    func testCheckReportsEachViolationAndExitsOne() throws {
        let good = write("good.jsonl", """
        {"t": 0, "wall": 0, "event": "play", "story": "a", "item": 0, "player": 1}
        {"t": 1, "wall": 0, "event": "stop", "story": "a", "item": 0, "player": 1}

        """)
        let ok = try run(["check", good])
        XCTAssertEqual(ok.status, 0)
        let bad = write("bad.jsonl", """
        {"t": 0, "wall": 0, "event": "play", "story": "a", "item": 0, "player": 1}
        {"t": 0, "wall": 0, "event": "play", "story": "b", "item": 0, "player": 2}
        {"t": 0, "wall": 0, "event": "play", "story": "c", "item": 0, "player": 3}
        {"t": 1, "wall": 0, "event": "stop", "story": "a", "item": 0, "player": 1}
        {"t": 1, "wall": 0, "event": "play", "story": "a", "item": 0, "player": 1}

        """)
        let result = try run(["check", bad])
        XCTAssertEqual(result.status, 1)
        let lines = result.stdout.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.hasPrefix("line 3:") && $0.contains("more than 2") }, result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("line 5:") && $0.contains("reused") }, result.stdout)
        XCTAssertTrue(lines.contains { $0.contains("never stopped") }, result.stdout)
        XCTAssertEqual(try run(["check", bad, "--max-alive", "3"]).stdout.contains("more than"), false)
    }

    /// Numbers no Int holds used to trap in `check` and `timeline`, and a huge `t` made the
    /// timeline's axis loop for ever. A trace is user input: both commands must answer.
    func testHostileNumbersInATraceAreReportedNotACrash() throws {
        let huge = write("huge.jsonl", """
        {"t": 0, "wall": 0, "event": "play", "story": "a", "player": 1e300}
        {"t": 1e300, "wall": 0, "event": "stop", "story": "a", "player": 1}

        """)
        let check = try run(["check", huge])
        XCTAssertEqual(check.status, 1, check.stderr)
        XCTAssertTrue(check.stdout.contains(#"line 1: "player" is not a whole number"#), check.stdout)
        let picture = FileManager.default.temporaryDirectory.appendingPathComponent("huge-\(UUID()).png").path
        defer { try? FileManager.default.removeItem(atPath: picture) }
        let timeline = try run(["timeline", huge, "--output", picture])
        XCTAssertEqual(timeline.status, 0, timeline.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: picture))
    }
}

/// Progress and picture outputs, as users call them.
final class OutputOptionTests: XCTestCase {
    let cli = CommandLineRunner()

    func testProgressJSONIsOneObjectPerLineOnStderr() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("json-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: out) }
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
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("quiet-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try cli.run(["render", cli.demo, "--output", out, "--size", "72x128", "--fps", "5", "--duration", "1", "--quiet"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stdout + result.stderr, "")
    }

    func testTimelineCommandAndRenderOptionWritePictures() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("pictures-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: out) }
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

/// Runs the built `render-stories` and collects its exit status and output.
struct CommandLineRunner {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    var demo: String { CommandLineTests.packageRoot.appendingPathComponent("samples/demo.json").path }

    func run(_ arguments: [String], in folder: String? = nil) throws -> Outcome {
        let paths = CommandLineTests.self
        let process = Process()
        process.executableURL = URL(fileURLWithPath: paths.executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder ?? paths.packageRoot.path)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                       stderr: String(decoding: stderr, as: UTF8.self))
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
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("sharded-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let options = ["--size", "90x160", "--fps", "8"]
        let full = try cli.run(["render", cli.demo, "--output", scratch + "/full", "--quiet"] + options)
        XCTAssertEqual(full.status, 0, full.stderr)
        let script = Process()
        script.executableURL = URL(fileURLWithPath: root + "/scripts/render-sharded.sh")
        script.arguments = [cli.demo, "3", scratch + "/joined", "--mp4", scratch + "/joined.mp4"] + options
        script.environment = ProcessInfo.processInfo.environment.merging(["RENDER_STORIES": CommandLineTests.executable]) { $1 }
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
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        probe.arguments = ["-v", "error", "-count_packets", "-select_streams", "v", "-show_entries", "stream=nb_read_packets",
                           "-of", "csv=p=0", scratch + "/joined.mp4"]
        let probeOutput = Pipe()
        probe.standardOutput = probeOutput
        try probe.run()
        let packets = String(decoding: probeOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        XCTAssertEqual(packets.trimmingCharacters(in: .whitespacesAndNewlines), "116")
        let traces = try FileManager.default.contentsOfDirectory(atPath: scratch + "/joined/shards").sorted()
        XCTAssertEqual(traces, ["01-lifecycle.jsonl", "02-lifecycle.jsonl", "03-lifecycle.jsonl"])
        for trace in traces {
            let check = try cli.run(["check", "--shard", scratch + "/joined/shards/" + trace])
            XCTAssertEqual(check.status, 0, check.stdout)
        }
    }
}
