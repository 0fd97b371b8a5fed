import Compositor
import Foundation
import XCTest

/// The `render-stories` executable as users run it: exit codes, messages, files.
final class CommandLineTests: XCTestCase {
    static let packageRoot = Fixture.packageRoot


    typealias Outcome = CommandLineRunner.Outcome

    func run(_ arguments: [String], in folder: String? = nil) throws -> Outcome {
        try CommandLineRunner().run(arguments, in: folder)
    }

    /// A fresh folder per test, removed when the test ends.
    var folder: ScratchFolder!
    var scratch: String { folder.path }

    override func setUp() { folder = ScratchFolder() }

    override func tearDown() { folder = nil }

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

    /// A command mistyped is named as such, not read as a storyboard path before an
    /// "unexpected argument"; a storyboard whose name looks like a command still renders.
    func testAMistypedCommandIsNamed() throws {
        let result = try run(["rendr", demo])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("no command \"rendr\"; did you mean \"render\"?"), result.stderr)
        XCTAssertTrue(try run(["chek", scratch + "/t.jsonl"]).stderr.contains("did you mean \"check\"?"))
        XCTAssertTrue(try run(["help"]).stdout.contains("docs/storyboard.md"), "the help points to the storyboard's keys")
    }

    /// A drag never released in a board with no duration would render an hour of a finger held
    /// down: render and frames refuse it before the first frame, naming it. With a release, or
    /// a duration, the same board renders.
    func testADragNeverReleasedInABoardWithNoDurationIsRefused() throws {
        let samples = CommandLineTests.packageRoot.path + "/samples"
        func board(_ script: String, _ duration: String) -> String {
            #"{"canvas": {"width": 72, "height": 128, "fps": 10},"# + duration
                + #" "stories": [{"id": "a", "items": [{"uri": "\#(samples)/sunset.jpg", "duration": 1}]},"#
                + #" {"id": "b", "items": [{"uri": "\#(samples)/home.jpg", "duration": 1}]}], "script": [\#(script)]}"#
        }
        let drag = #"{"at": 0.5, "action": "drag", "to": 0.5, "over": 0.2}"#
        let held = scratch + "/held.json"
        // A tap while the finger is down is ignored, so it lifts nothing either.
        for script in [drag, drag + #", {"at": 0.9, "action": "tap", "side": "right"}"#] {
            try board(script, "").write(toFile: held, atomically: true, encoding: .utf8)
            for command in [["render", held, "--output", scratch + "/held"], ["frames", held]] {
                let result = try run(command)
                XCTAssertEqual(result.status, 2, "\(command): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("script: the drag at 0.5 s is never released"), result.stderr)
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/held/frame-000000.png"))
        // A release, a dismiss before the drag (nothing after it is performed), or a duration:
        // each renders.
        for (script, duration) in [(drag + #", {"at": 0.8, "action": "release"}"#, ""), (drag, #" "duration": 1.5,"#),
                                   (#"{"at": 0.2, "action": "dismiss"}, "# + drag, "")] {
            let fine = scratch + "/fine.json"
            try board(script, duration).write(toFile: fine, atomically: true, encoding: .utf8)
            let frames = try run(["frames", fine])
            XCTAssertEqual(frames.status, 0, frames.stderr)
        }
    }

    /// Small slips named as such: a picture output not named .png (it held PNG bytes under a
    /// .jpg name), an empty probe argument (it probed the current folder), and an odd size for
    /// an MP4, whose message now comes with render's usage, not the root command's.
    func testSmallSlipsAreNamedWithTheirCommandsUsage() throws {
        for arguments in [["render", demo, "--contact-sheet", scratch + "/sheet.jpg"],
                          ["render", demo, "--timeline", scratch + "/t.jpg"],
                          ["still", demo, "--page", "0", "--output", scratch + "/s.jpg"],
                          ["timeline", scratch + "/t.jsonl", "--output", scratch + "/t.jpg"]] {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments)")
            XCTAssertTrue(result.stderr.contains("the picture is a PNG file; give its name the .png extension"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/s.jpg"))
        let empty = try run(["probe", ""])
        XCTAssertEqual(empty.status, 2)
        XCTAssertTrue(empty.stderr.contains("give a file or URL to probe"), empty.stderr)
        let odd = try run(["render", demo, "--size", "361x640", "--mp4", scratch + "/o.mp4", "--output", scratch + "/odd"])
        XCTAssertEqual(odd.status, 2)
        XCTAssertTrue(odd.stderr.contains("needs an even width and height"), odd.stderr)
        XCTAssertTrue(odd.stderr.contains("render-stories render"), "render's usage: \(odd.stderr)")
    }

    /// A negative number given to a numeric option is read as its value and told why it is out
    /// of bounds, not taken for an option ("Missing value for '--page <P>'").
    func testNegativeNumbersAreReadAsValuesAndRefusedByTheirBounds() throws {
        for (arguments, message) in [(["still", demo, "--page", "-0.5"], "--page"),
                                     (["render", demo, "--duration", "-1"], "--duration must be"),
                                     (["check", scratch + "/t.jsonl", "--max-alive", "-1"], "--max-alive must be at least 1"),
                                     (["timeline", scratch + "/t.jsonl", "--width", "-5"], "--width must be 300 to 8000")] {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("Missing value"), "\(arguments): \(result.stderr)")
        }
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

    /// `frames --shards N --keyframes` prints N ranges over the same frames as the even split,
    /// cut elsewhere: the demo's even cuts at 218 and 327 fall inside clips (`ShardCutsTests`
    /// checks where); without --shards it is a usage error.
    func testFramesKeyframesCutsCoverTheSameFrames() throws {
        let usage = try run(["frames", demo, "--keyframes"])
        XCTAssertEqual(usage.status, 2)
        XCTAssertTrue(usage.stderr.contains("need --shards N"), usage.stderr)
        let even = try run(["frames", demo, "--shards", "4", "--size", "90x160"])
        let moved = try run(["frames", demo, "--shards", "4", "--keyframes", "--size", "90x160"])
        XCTAssertEqual(moved.status, 0, moved.stderr)
        let bounds = { (text: String) in
            text.split(separator: "\n").map { $0.split(separator: ".").compactMap { Int($0) } }
        }
        let (evenRanges, movedRanges) = (bounds(even.stdout), bounds(moved.stdout))
        guard movedRanges.count == 4, movedRanges.allSatisfy({ $0.count == 2 }) else {
            return XCTFail("four ranges A..B: \(moved.stdout)")
        }
        XCTAssertNotEqual(movedRanges, evenRanges, "the cuts moved")
        XCTAssertEqual(movedRanges.first?.first, 0)
        XCTAssertEqual(movedRanges.last?.last, evenRanges.last?.last, "the same frames")
        XCTAssertTrue(zip(movedRanges, movedRanges.dropFirst()).allSatisfy { $0[1] == $1[0] && $0[0] < $0[1] }, moved.stdout)
        let one = try run(["frames", demo, "--shards", "4", "--shard", "2", "--keyframes", "--size", "90x160"])
        XCTAssertEqual(one.stdout, "\(movedRanges[2][0])..\(movedRanges[2][1])\n", "--shard I picks the same cut")
    }

    func testUnwritableOutputExitsOneBeforeAnyWork() throws {
        let blocker = write("file", "x")
        let result = try run(["render", demo, "--output", blocker + "/out"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("output folder"), result.stderr)
    }

    /// A story that fails while rendering (here a file that is there but is not media) is exit 3
    /// with --strict; a file that is not there at all stops --strict before rendering (exit 2,
    /// StillOverlayCommandTests).
    func testStrictExitsThreeWhenAStoryFailed() throws {
        _ = write("gone.mp4", "not a video")
        let board = write("failing.json", #"{"canvas": {"width": 36, "height": 64, "fps": 2}, "duration": 1, "stories": [{"id": "gone", "items": [{"uri": "gone.mp4"}]}]}"#)
        let lenient = try run(["render", board, "--output", scratch + "/a"])
        XCTAssertEqual(lenient.status, 0)
        XCTAssertTrue(lenient.stderr.contains("story gone failed"), lenient.stderr)
        let strict = try run(["render", board, "--output", scratch + "/b", "--strict"])
        XCTAssertEqual(strict.status, 3)
        let summary = try String(contentsOfFile: scratch + "/b/summary.json", encoding: .utf8)
        XCTAssertTrue(summary.contains("\"failed_stories\": [\"gone\"]"), summary)
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
        let picture = folder.file("huge.png")
        let timeline = try run(["timeline", huge, "--output", picture])
        XCTAssertEqual(timeline.status, 0, timeline.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: picture))
    }
}
