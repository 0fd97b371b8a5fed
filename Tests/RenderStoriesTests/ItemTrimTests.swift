import Compositor
import Foundation
import XCTest

/// An item's `in` and `out`: the picture at the item's time t is the file's at `in` + t in the
/// frames and in `still --time`, the item lasts `out` − `in`, its sound is the cut's, and bad
/// trims name their JSON path.
final class ItemTrimTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// A 6 s clip at 10 fps whose frame N is grey at luma 16 + 3N (so a picture says which frame
    /// it is), with a 440 Hz tone only from 4 s on.
    func numberedClip() throws -> String {
        let clip = folder.file("numbered.mp4")
        guard !FileManager.default.fileExists(atPath: clip) else { return clip }
        try ExternalProgram.run(TestPrograms.tool("ffmpeg"), [
            "-v", "error", "-y", "-f", "lavfi", "-i", "nullsrc=s=90x160:r=10:d=6,geq=lum='16+3*N':cb=128:cr=128",
            "-f", "lavfi", "-i", "aevalsrc='if(gte(t,4),0.5*sin(2*PI*440*t),0)':s=48000:d=6",
            "-c:v", "libx264", "-qp", "0", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-shortest", clip,
        ])
        return clip
    }

    /// Which frame of the numbered clip a picture shows, from its centre's grey.
    func frameNumber(_ picture: RGBAImage) -> Int {
        let grey = Double(picture[picture.width / 2, picture.height / 2].green)
        // Full-range RGB from limited-range luma: (Y − 16) · 255/219.
        return Int((grey * 219 / 255 / 3).rounded())
    }

    func render(_ keys: String, name: String, extra: [String] = []) throws -> String {
        _ = try numberedClip()
        let board = folder.write("\(name).json", Array("""
        {"canvas": {"width": 90, "height": 160, "fps": 10},
         "stories": [{"id": "s", "items": [{"uri": "numbered.mp4"\(keys)}]}]}
        """.utf8))
        let out = folder.file(name)
        let result = try cli.run(["render", board, "--no-overlay", "--quiet", "--output", out] + extra)
        XCTAssertEqual(result.status, 0, result.stderr)
        return out
    }

    func testFramesShowTheCutAndTheItemLastsItsLength() throws {
        let whole = try render("", name: "whole")
        XCTAssertEqual(frameNumber(try RGBAImage(contentsOfPNG: whole + "/frame-000007.png")), 7, "the clip numbers its frames")
        let out = try render(#", "in": 2.5, "out": 4"#, name: "cut")
        let frames = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix("frame-") }.count
        XCTAssertEqual(frames, 15, "out − in = 1.5 s at 10 fps")
        for k in [0, 1, 7, 14] {
            let picture = try RGBAImage(contentsOfPNG: out + String(format: "/frame-%06d.png", k))
            XCTAssertEqual(frameNumber(picture), 25 + k, "frame \(k) shows the file at 2.5 + \(k)/10 s")
        }
        // Only `out`: from the start, cut short.
        let early = try render(#", "out": 1"#, name: "early")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: early).filter { $0.hasPrefix("frame-") }.count, 10)
        XCTAssertEqual(frameNumber(try RGBAImage(contentsOfPNG: early + "/frame-000003.png")), 3)
    }

    /// A shard starting mid-cut seeks from the cut, not from the file's start: its frames are the
    /// whole render's bytes.
    func testAShardOfATrimmedItemDrawsTheWholeRendersBytes() throws {
        let whole = try render(#", "in": 1.3, "out": 4.8"#, name: "wholecut")
        let shard = try render(#", "in": 1.3, "out": 4.8"#, name: "shardcut", extra: ["--frames", "17..24"])
        for k in 17..<24 {
            let name = String(format: "/frame-%06d.png", k)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: shard + name)), try Data(contentsOf: URL(fileURLWithPath: whole + name)), name)
        }
        XCTAssertEqual(frameNumber(try RGBAImage(contentsOfPNG: shard + "/frame-000017.png")), 30)
    }

    /// Two cuts of one file are two sources: each lasts its own length and starts at its own
    /// place, in the whole render and in a shard (their lengths were cached by the file's path).
    func testTwoCutsOfOneFileEachKeepTheirOwn() throws {
        _ = try numberedClip()
        let board = folder.write("two.json", Array("""
        {"canvas": {"width": 90, "height": 160, "fps": 10},
         "stories": [{"id": "s", "items": [{"uri": "numbered.mp4", "in": 0.5, "out": 1.5}, {"uri": "numbered.mp4", "in": 4}]}]}
        """.utf8))
        let whole = folder.file("two-whole"), shard = folder.file("two-shard")
        XCTAssertEqual(try cli.run(["render", board, "--no-overlay", "--quiet", "--output", whole]).status, 0)
        XCTAssertEqual(try cli.run(["render", board, "--no-overlay", "--quiet", "--output", shard, "--frames", "22..28"]).status, 0)
        let frames = try FileManager.default.contentsOfDirectory(atPath: whole).filter { $0.hasPrefix("frame-") }.count
        XCTAssertEqual(frames, 30, "1 s, then 2 s")
        XCTAssertEqual(frameNumber(try RGBAImage(contentsOfPNG: whole + "/frame-000009.png")), 14)
        XCTAssertEqual(frameNumber(try RGBAImage(contentsOfPNG: whole + "/frame-000010.png")), 40)
        for k in 22..<28 {
            let name = String(format: "/frame-%06d.png", k)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: shard + name)), try Data(contentsOf: URL(fileURLWithPath: whole + name)), name)
        }
    }

    func testStillAtATimeOfATrimmedItem() throws {
        _ = try numberedClip()
        let board = folder.write("still.json", Array("""
        {"canvas": {"width": 90, "height": 160, "fps": 10},
         "stories": [{"id": "s", "items": [{"uri": "numbered.mp4", "in": 3.2}]}]}
        """.utf8))
        for (time, expected) in [(0.0, 32), (0.5, 37)] {
            let png = folder.file("still-\(time).png")
            let result = try cli.run(["still", board, "--page", "0", "--time", String(time), "--no-overlay", "--output", png])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(frameNumber(try RGBAImage(contentsOfPNG: png)), expected, "still --time \(time) with in 3.2")
        }
    }

    /// The tone starts at 4 s of the file: a cut from 4 s is loud from its start, one that ends
    /// at 4 s is silent.
    func testTheSoundIsTheCuts() throws {
        func meanVolume(_ keys: String, name: String) throws -> Double {
            let mp4 = folder.file("\(name).mp4")
            _ = try render(keys, name: name, extra: ["--no-png", "--mp4", mp4])
            let outcome = try ExternalProgram.outcome(TestPrograms.tool("ffmpeg"), ["-v", "info", "-t", "0.8", "-i", mp4,
                                                                                   "-af", "volumedetect", "-vn", "-f", "null", "-"])
            let report = String(decoding: outcome.stderr, as: UTF8.self)
            return try XCTUnwrap(report.firstMatch(of: /mean_volume: (-?[\d.]+) dB/).flatMap { Double($0.1) }, report)
        }
        XCTAssertGreaterThan(try meanVolume(#", "in": 4"#, name: "loud"), -20, "the tone from the cut's start")
        XCTAssertLessThan(try meanVolume(#", "in": 1, "out": 3"#, name: "quiet"), -60, "no tone before 4 s of the file")
    }

    func testATrimPastTheEndFailsTheStoryAndSaysWhy() throws {
        let out = try render(#", "in": 9"#, name: "past")
        let summary = try String(contentsOfFile: out + "/summary.json", encoding: .utf8)
        XCTAssertTrue(summary.contains(#""failed_stories": ["s"]"#), summary)
        XCTAssertTrue(summary.contains(#"\"in\" 9 s is past the end"#), summary)
    }

    func testBadTrimsNameTheirPath() throws {
        for (keys, said) in [(#""in": 2, "out": 1"#, #"items[0].out: 1 must come after "in" (2)"#),
                             (#""in": -1"#, "items[0].in: -1 is out of range"),
                             (#""out": "end""#, "items[0].out: expected a number"),
                             (#""uri": "rtmp://127.0.0.1/live/x", "in": 1"#, "items[0].in: a live item cannot be trimmed")] {
            let uri = keys.contains("\"uri\"") ? "" : #""uri": "x.mp4", "#
            let board = folder.write("bad.json", Array("""
            {"stories": [{"id": "s", "items": [{\(uri)\(keys)}]}]}
            """.utf8))
            let result = try cli.run(["render", board, "--quiet", "--output", folder.file("bad")])
            XCTAssertEqual(result.status, 2, keys)
            XCTAssertTrue(result.stderr.contains("stories[0]." + said), result.stderr)
        }
    }
}
