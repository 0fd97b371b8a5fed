import Compositor
import Foundation
import XCTest

/// `render-stories compare A B` on frame folders and clips: an identical render passes with SSIM
/// 1, and each difference a user would care about fails it (exit 1) with the frame named; bad
/// input is a usage error (exit 2).
final class CompareCommandTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()
    static let size = (width: 180, height: 320)

    /// Frame `index` of a cube turn seen as two faces: a ramp on the left, a checker on the
    /// right, their edge at `edge` (moving 6 pixels a frame), plus `shift` pixels.
    func cubeFrame(_ index: Int, shift: Int = 0) -> RGBAImage {
        let (w, h) = Self.size
        let edge = 40 + 6 * index + shift
        var image = RGBAImage(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                image[x, y] = x < edge
                    ? RGBAColor(red: UInt8(x * 255 / w), green: UInt8(y * 255 / h), blue: 90)
                    : ((x / 8 + y / 8) % 2 == 0 ? RGBAColor(red: 230, green: 200, blue: 40) : RGBAColor(red: 30, green: 60, blue: 160))
            }
        }
        return image
    }

    /// A folder of `frame-NNNNNN.png` files, as a render writes them, numbered from `first`
    /// (a shard's) and leaving out `missing`.
    func render(_ name: String, _ frames: [RGBAImage], first: Int = 0, missing: Set<Int> = []) throws -> String {
        let path = folder.file(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (i, frame) in frames.enumerated() where !missing.contains(first + i) {
            try frame.writePNG(to: (path as NSString).appendingPathComponent(String(format: "frame-%06d.png", first + i)))
        }
        return path
    }

    func frames(_ count: Int) -> [RGBAImage] { (0..<count).map { cubeFrame($0) } }

    /// The report's `frames` as objects.
    func reportFrames(_ json: String) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return object?["frames"] as? [[String: Any]] ?? []
    }

    func testAnIdenticalRenderPassesWithSSIMOne() throws {
        let a = try render("a", frames(8)), b = try render("b", frames(8))
        let result = try cli.run(["compare", a, b, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let frames = try reportFrames(result.stdout)
        XCTAssertEqual(frames.count, 8)
        for frame in frames {
            XCTAssertEqual(frame["verdict"] as? String, "same")
            XCTAssertEqual(frame["ssim"] as? Double, 1)
            XCTAssertNil(frame["psnr"], "no PSNR for identical frames")
        }
    }

    func testACubeEdgeMovedOnePixelIsCaughtOnItsFrame() throws {
        var moved = frames(8)
        moved[5] = cubeFrame(5, shift: 1)
        let a = try render("a", frames(8)), b = try render("b", moved)
        let result = try cli.run(["compare", a, b, "--json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let changed = try reportFrames(result.stdout).filter { $0["verdict"] as? String == "changed" }
        XCTAssertEqual(changed.map { $0["a"] as? Int }, [5])
        let ssim = try XCTUnwrap(changed.first?["ssim"] as? Double)
        XCTAssertLessThan(ssim, 1)
        XCTAssertGreaterThan(ssim, 0.9, "one column of a 180-wide frame")
        // The text names it too; a threshold below its SSIM lets it pass.
        XCTAssertTrue(try cli.run(["compare", a, b]).stdout.contains("frame 5: changed"))
        XCTAssertEqual(try cli.run(["compare", a, b, "--min-ssim", String(ssim - 0.001)]).status, 0)
        XCTAssertEqual(try cli.run(["compare", a, b, "--min-ssim", String(ssim + 0.001)]).status, 1)
        XCTAssertEqual(try cli.run(["compare", a, b, "--max-changed-frames", "1"]).status, 0)
    }

    func testAChangeOutsideTheRegionPasses() throws {
        var moved = frames(4)
        moved[2] = cubeFrame(2, shift: 1) // the edge is at 52: columns 52-53 change
        let a = try render("a", frames(4)), b = try render("b", moved)
        XCTAssertEqual(try cli.run(["compare", a, b, "--region", "100,0,80,320"]).status, 0)
        XCTAssertEqual(try cli.run(["compare", a, b, "--region", "40,0,40,320"]).status, 1)
    }

    func testExtraFramesAreInsertionsAndMissingOnesDeletions() throws {
        let a = try render("a", frames(6)), longer = try render("b", frames(8))
        let result = try cli.run(["compare", a, longer, "--json"])
        XCTAssertEqual(result.status, 1)
        let frames = try reportFrames(result.stdout)
        XCTAssertEqual(frames.filter { $0["verdict"] as? String == "inserted" }.compactMap { $0["b"] as? Int }, [6, 7])
        XCTAssertEqual(frames.filter { $0["verdict"] as? String == "same" }.count, 6)
        let reverse = try reportFrames(try cli.run(["compare", longer, a, "--json"]).stdout)
        XCTAssertEqual(reverse.filter { $0["verdict"] as? String == "deleted" }.compactMap { $0["a"] as? Int }, [6, 7])
        XCTAssertEqual(try cli.run(["compare", a, longer, "--max-changed-frames", "2"]).status, 0)
    }

    func testABT601AndBT709SwapInAClipIsCaught() throws {
        let source = try render("source", frames(6))
        // Lossless H.264 (qp 0), so that only the matrix differs: one encoded with BT.709's as
        // tagged, one with BT.601's and tagged BT.709, as a pipeline that loses the tag makes it.
        func encode(_ name: String, matrix: String) throws -> String {
            let clip = folder.file(name)
            _ = try ExternalProgram.run("/usr/bin/ffmpeg", [
                "-v", "error", "-y", "-framerate", "30", "-i", (source as NSString).appendingPathComponent("frame-%06d.png"),
                "-vf", "scale=out_color_matrix=\(matrix):out_range=tv,format=yuv420p", "-c:v", "libx264", "-qp", "0",
                "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", clip])
            return clip
        }
        let right = try encode("right.mp4", matrix: "bt709"), again = try encode("again.mp4", matrix: "bt709")
        let swapped = try encode("swapped.mp4", matrix: "bt601")
        let same = try cli.run(["compare", right, again])
        XCTAssertEqual(same.status, 0, same.stdout + same.stderr)
        let result = try cli.run(["compare", right, swapped, "--json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let frames = try reportFrames(result.stdout)
        XCTAssertEqual(frames.count, 6)
        for frame in frames {
            XCTAssertEqual(frame["verdict"] as? String, "changed")
            let psnr = try XCTUnwrap(frame["psnr"] as? Double)
            XCTAssertLessThan(psnr, 40, "a hue shift across the frame")
        }
        // The folder against its own clip: equal within what 4:2:0 and 8 bits lose.
        XCTAssertEqual(try cli.run(["compare", source, right, "--min-psnr", "40"]).status, 0)
    }

    func testADroppedFrameIsADeletionAndTheRestStayPaired() throws {
        var dropped = frames(10)
        dropped.remove(at: 4)
        let a = try render("a", frames(10)), b = try render("b", dropped)
        let result = try cli.run(["compare", a, b, "--json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["pairing"] as? String, "content")
        let frames = try reportFrames(result.stdout)
        XCTAssertEqual(frames.filter { $0["verdict"] as? String == "deleted" }.compactMap { $0["a"] as? Int }, [4])
        let same = frames.filter { $0["verdict"] as? String == "same" }
        XCTAssertEqual(same.count, 9)
        XCTAssertEqual(same.compactMap { $0["a"] as? Int }, [0, 1, 2, 3, 5, 6, 7, 8, 9])
        XCTAssertEqual(same.compactMap { $0["b"] as? Int }, Array(0..<9))
        // The same frame, inserted: one insertion.
        let back = try reportFrames(try cli.run(["compare", b, a, "--json"]).stdout)
        XCTAssertEqual(back.filter { $0["verdict"] as? String == "inserted" }.compactMap { $0["b"] as? Int }, [4])
        XCTAssertEqual(try cli.run(["compare", a, b, "--max-changed-frames", "1"]).status, 0)
    }

    func swipeRender(_ name: String, swipeAt: Double) throws -> String {
        try SwipeRenders(cli: cli, folder: folder).render(name, swipeAt: swipeAt)
    }

    func testTheSameStoryboardRenderedAgainPasses() throws {
        // The traces' wall-clock fields differ between the runs; nothing else does.
        let result = try cli.run(["compare", try swipeRender("a", swipeAt: 0.5), try swipeRender("b", swipeAt: 0.5)])
        XCTAssertEqual(result.status, 0, result.stdout)
        XCTAssertTrue(result.stdout.contains("traces: the same"), result.stdout)
    }

    func testATransitionStartedTwoFramesLaterIsTwoFramesInsertedBeforeIt() throws {
        let a = try swipeRender("a", swipeAt: 0.5), b = try swipeRender("b", swipeAt: 0.7)
        let result = try cli.run(["compare", a, b, "--json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["pairing"] as? String, "trace", "both have frames.jsonl")
        let frames = try reportFrames(result.stdout)
        // Two more frames of the first story before the turn; the turn itself and the rest
        // are the same pictures two frames on; A's last two are gone.
        let inserted = frames.filter { $0["verdict"] as? String == "inserted" }.compactMap { $0["b"] as? Int }
        XCTAssertEqual(inserted.count, 2)
        // (B's turn starts at frame 7, which shows it at 0, as frame 6 does.)
        XCTAssertTrue(inserted.allSatisfy { $0 <= 7 }, "\(inserted): before the turn")
        XCTAssertEqual(frames.filter { $0["verdict"] as? String == "deleted" }.compactMap { $0["a"] as? Int }, [18, 19])
        XCTAssertEqual(frames.filter { $0["verdict"] as? String == "same" }.count, 18)
        XCTAssertEqual(frames.filter { $0["verdict"] as? String == "changed" }.count, 0)
    }

    func testAPlayerCreatedOneFrameLaterIsATraceDifference() throws {
        let a = try swipeRender("a", swipeAt: 0.5), b = try swipeRender("b", swipeAt: 0.6)
        let result = try cli.run(["compare", a, b, "--json", "--max-changed-frames", "2"])
        XCTAssertEqual(result.status, 1, "the frames are within what is allowed; the trace is not")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["trace_compared"] as? Bool, true)
        let trace = try XCTUnwrap(object["trace"] as? [[String: Any]])
        let play = try XCTUnwrap(trace.first { $0["event"] as? String == "play" && $0["story"] as? String == "two" })
        XCTAssertEqual(play["kind"] as? String, "changed")
        XCTAssertEqual(play["frame"] as? Int, 7, "B's frame")
        XCTAssertEqual((play["fields"] as? [String: [String]])?["t"], ["0.6", "0.7"])
        XCTAssertNil((play["fields"] as? [String: Any])?["wall"], "the wall clock never counts")
        // The text says it on its own line; a field ignored is no difference.
        XCTAssertTrue(try cli.run(["compare", a, b]).stdout.contains("changed play of two at frame 7"))
        XCTAssertEqual(try cli.run(["compare", a, b, "--max-changed-frames", "2", "--ignore-trace-field", "t"]).status, 0)
    }

    func testRenderCompareToAGoldenRender() throws {
        let golden = try swipeRender("golden", swipeAt: 0.5)
        let board = folder.file("golden.json")
        // The same storyboard against its golden render: passes, compare.json beside the frames.
        let again = try cli.run(["render", board, "--no-overlay", "--output", folder.file("again"), "--compare-to", golden])
        XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
        XCTAssertTrue(again.stdout.contains("PASS"), again.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.file("again/compare.json")))
        // A regression: the swipe moved a frame later.
        let later = try String(contentsOfFile: board, encoding: .utf8).replacingOccurrences(of: "\"at\": 0.5", with: "\"at\": 0.6")
        let laterBoard = folder.write("later.json", Array(later.utf8))
        let moved = try cli.run(["render", laterBoard, "--no-overlay", "--quiet", "--output", folder.file("later"), "--compare-to", golden])
        XCTAssertEqual(moved.status, 1, moved.stderr)
        XCTAssertTrue(moved.stdout.contains("FAIL"), moved.stdout)
        // Within what is allowed, with the trace's times set aside.
        let allowed = try cli.run(["render", laterBoard, "--no-overlay", "--quiet", "--output", folder.file("later"), "--compare-to", golden,
                                   "--max-changed-frames", "2", "--ignore-trace-field", "t"])
        XCTAssertEqual(allowed.status, 0, allowed.stdout + allowed.stderr)
        // Usage: a golden folder that is not there is said before rendering; thresholds need --compare-to.
        let missing = try cli.run(["render", board, "--output", folder.file("x"), "--compare-to", folder.file("nothing")])
        XCTAssertEqual(missing.status, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("x/frame-000000.png")), "nothing rendered")
        XCTAssertEqual(try cli.run(["render", board, "--output", folder.file("x"), "--min-ssim", "0.9"]).status, 2)
        // Into the golden folder itself: refused before it is touched.
        let itself = try cli.run(["render", board, "--no-overlay", "--output", golden, "--compare-to", golden])
        XCTAssertEqual(itself.status, 2, itself.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: golden + "/summary.json"), "the golden render is whole")
        XCTAssertEqual(try cli.run(["render", board, "--output", folder.file("x"), "--compare-to", golden, "--no-png", "--mp4",
                                    folder.file("x.mp4")]).status, 2)
    }

    func testFramesAreNamedByTheirFilesNumbers() throws {
        // A shard from frame 100, against the same with frame 102 missing.
        let shard = try render("shard", frames(6), first: 100), gap = try render("gap", frames(6), first: 100, missing: [102])
        let frames = try reportFrames(try cli.run(["compare", shard, gap, "--json"]).stdout)
        XCTAssertEqual(frames.compactMap { $0["a"] as? Int }, Array(100...105))
        XCTAssertEqual(frames.filter { $0["verdict"] as? String == "deleted" }.compactMap { $0["a"] as? Int }, [102])
        XCTAssertEqual(frames.compactMap { $0["b"] as? Int }, [100, 101, 103, 104, 105])
    }

    func testAPixelTheYUVPictureRoundsAwayIsStillAChange() throws {
        // Blue 100 → 101 at one pixel of a grey picture: the same 4:2:0 samples, other bytes.
        let grey = RGBAImage(width: 32, height: 32, fill: RGBAColor(red: 100, green: 100, blue: 100))
        var touched = grey
        touched[5, 5] = RGBAColor(red: 100, green: 100, blue: 101)
        let result = try cli.run(["compare", try render("a", [grey]), try render("b", [touched]), "--json"])
        XCTAssertEqual(result.status, 1, result.stdout)
        let frame = try XCTUnwrap(try reportFrames(result.stdout).first)
        XCTAssertEqual(frame["verdict"] as? String, "changed")
        XCTAssertEqual(frame["note"] as? String, "the RGB differs; its 4:2:0 picture does not")
    }

    func testSSIMAndPSNRReadAsFFmpegsFilters() throws {
        // One frame and a changed copy; FFmpeg's ssim and psnr filters on the same two pictures
        // turned into BT.709 4:2:0 as compare turns them.
        var changed = cubeFrame(3)
        changed.fill(RGBAColor(red: 250, green: 250, blue: 250), columns: 100..<140, rows: 150..<230)
        let a = try render("a", [cubeFrame(3)]), b = try render("b", [changed])
        let ours = try XCTUnwrap(try reportFrames(try cli.run(["compare", a, b, "--json"]).stdout).first)
        let filters = "[0:v]scale=out_color_matrix=bt709:out_range=tv,format=yuv420p[a];"
            + "[1:v]scale=out_color_matrix=bt709:out_range=tv,format=yuv420p[b];[a]split[a1][a2];[b]split[b1][b2];"
            + "[a1][b1]ssim;[a2][b2]psnr"
        let outcome = try ExternalProgram.outcome("/usr/bin/ffmpeg", [
            "-hide_banner", "-i", a + "/frame-000000.png", "-i", b + "/frame-000000.png", "-lavfi", filters, "-f", "null", "-"])
        XCTAssertEqual(outcome.status, 0)
        let log = String(decoding: outcome.stderr, as: UTF8.self)
        func figure(_ after: String) throws -> Double {
            let range = try XCTUnwrap(log.range(of: after), log)
            return try XCTUnwrap(Double(log[range.upperBound...].prefix { "0123456789.".contains($0) }), log)
        }
        XCTAssertEqual(try XCTUnwrap(ours["ssim"] as? Double), try figure("All:"), accuracy: 0.002)
        XCTAssertEqual(try XCTUnwrap(ours["psnr"] as? Double), try figure("average:"), accuracy: 0.3)
    }

    func testARegionOutsideTheFramesOrAClipOfSoundIsAUsageError() throws {
        let a = try render("a", frames(2))
        let outside = try cli.run(["compare", a, a, "--region", "4000,0,100,100"])
        XCTAssertEqual(outside.status, 2)
        XCTAssertTrue(outside.stderr.contains("lies outside the 180x320 frames"), outside.stderr)
        let sound = folder.file("sound.m4a")
        _ = try ExternalProgram.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=d=0.5", "-c:a", "aac", sound])
        let empty = try cli.run(["compare", sound, sound])
        XCTAssertEqual(empty.status, 2, empty.stdout)
        XCTAssertTrue(empty.stderr.contains("sound only"), empty.stderr)
    }

    func testAComparisonAgainIntoItsFolderLeavesNoneOfTheEarlierOne() throws {
        var moved = frames(4)
        moved[2] = cubeFrame(2, shift: 1)
        let a = try render("a", frames(4)), b = try render("b", moved)
        let out = folder.file("report")
        XCTAssertEqual(try cli.run(["compare", a, b, "--output", out]).status, 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out + "/diff"), ["000002-000002.png"])
        let notes = folder.write("report/diff/notes.txt", Array("mine".utf8))
        // The same folder, now for two equal renders: no picture of the earlier one is left.
        XCTAssertEqual(try cli.run(["compare", a, a, "--output", out]).status, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out + "/diff"), ["notes.txt"], "only what it did not write")
        XCTAssertTrue(FileManager.default.fileExists(atPath: notes))
        let json = try String(contentsOfFile: out + "/compare.json", encoding: .utf8)
        XCTAssertTrue(json.contains("\"passed\": true"), json)
    }

    func testUnreadableInputsAreUsageErrors() throws {
        let a = try render("a", frames(2))
        let missing = try cli.run(["compare", a, folder.file("nothing")])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("no such file or folder"), missing.stderr)
        try FileManager.default.createDirectory(atPath: folder.file("empty"), withIntermediateDirectories: true)
        let empty = try cli.run(["compare", a, folder.file("empty")])
        XCTAssertEqual(empty.status, 2)
        XCTAssertTrue(empty.stderr.contains("not a render's folder"), empty.stderr)
        let notVideo = folder.write("notes.txt", Array("not a video".utf8))
        XCTAssertEqual(try cli.run(["compare", a, notVideo]).status, 2)
        XCTAssertEqual(try cli.run(["compare", a, a, "--min-ssim", "2"]).status, 2)
        XCTAssertEqual(try cli.run(["compare", a, a, "--region", "1,2,3"]).status, 2)
    }

    func testTheReportIsWrittenWhole() throws {
        let a = try render("a", frames(3))
        let out = folder.file("report")
        let result = try cli.run(["compare", a, a, "--output", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try String(contentsOfFile: (out as NSString).appendingPathComponent("compare.json"), encoding: .utf8)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(object["passed"] as? Bool, true)
        XCTAssertEqual(object["frames_a"] as? Int, 3)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).sorted(), ["compare.html", "compare.json", "diff"],
                       "no temporary file left")
    }
}

/// Renders of a small storyboard with a cube swipe, for the comparison tests.
struct SwipeRenders {
    let cli: CommandLineRunner
    let folder: ScratchFolder

    /// A real render of two photo stories and a cube swipe at `swipeAt`, no UI over them.
    func render(_ name: String, swipeAt: Double, options: [String] = []) throws -> String {
        for (file, colour) in [("one.png", RGBAColor(red: 220, green: 90, blue: 40)), ("two.png", RGBAColor(red: 40, green: 90, blue: 220))]
        where !FileManager.default.fileExists(atPath: folder.file(file)) {
            var picture = RGBAImage(width: 45, height: 80, fill: colour)
            picture.fill(.white, columns: 10..<30, rows: 20..<50)
            try picture.writePNG(to: folder.file(file))
        }
        let board = folder.write("\(name).json", Array("""
        {"canvas": {"width": 90, "height": 160, "fps": 10}, "duration": 2,
         "transition": {"style": "cube", "duration": 0.5},
         "script": [{"at": \(swipeAt), "action": "swipe", "direction": "next"}],
         "stories": [{"id": "one", "items": [{"uri": "one.png", "duration": 3}]},
                     {"id": "two", "items": [{"uri": "two.png", "duration": 3}]}]}
        """.utf8))
        let out = folder.file(name)
        let result = try cli.run(["render", board, "--no-overlay", "--quiet", "--output", out] + options)
        XCTAssertEqual(result.status, 0, result.stderr)
        return out
    }
}
