import Foundation
import XCTest

/// `render --preset NAME` and `check-preset FILE --preset NAME`: our files hold to their
/// platform's limits; a file made otherwise is told which limits it breaks.
final class PlatformPresetCommandTests: XCTestCase {
    let cli = CommandLineRunner()

    /// A short board of one photo: a preset draws 1080x1920, and the render must stay quick.
    func photoBoard(in folder: ScratchFolder) throws -> String {
        let path = folder.file("board.json")
        try Data("""
        {"canvas": {"width": 180, "height": 320, "fps": 10}, "duration": 3,
         "stories": [{"id": "a", "items": [{"uri": "\(Fixture.sample("home.jpg"))", "duration": 5}]}]}
        """.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testEveryPresetsOutputPassesCheckPreset() throws {
        let folder = ScratchFolder()
        let board = try photoBoard(in: folder)
        for preset in ["reels", "stories", "tiktok", "shorts"] {
            let clip = folder.file("\(preset).mp4")
            let render = try cli.run(["render", board, "--output", folder.file(preset), "--preset", preset, "--mp4", clip,
                                      "--no-png", "--quiet", "--x264-preset", "ultrafast"])
            XCTAssertEqual(render.status, 0, "\(preset): \(render.stderr)")
            let check = try cli.run(["check-preset", clip, "--preset", preset])
            XCTAssertEqual(check.status, 0, "\(preset): \(check.stdout) \(check.stderr)")
            XCTAssertTrue(check.stdout.contains("holds to every limit of \(preset)"), check.stdout)
        }
    }

    /// `--codec hevc` where the platform takes HEVC (Reels, Stories): HEVC Main tagged hvc1,
    /// which check-preset passes; where it does not (TikTok, Shorts), a usage error naming those.
    func testHEVCWhereThePlatformTakesIt() throws {
        let folder = ScratchFolder()
        let board = try photoBoard(in: folder)
        let clip = folder.file("reels.mp4")
        let render = try cli.run(["render", board, "--output", folder.file("reels"), "--preset", "reels", "--codec", "hevc",
                                  "--mp4", clip, "--no-png", "--quiet", "--x264-preset", "ultrafast"])
        XCTAssertEqual(render.status, 0, render.stderr)
        let probe = try ExternalProgram.outcome(TestPrograms.tool("ffprobe"), [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,profile,codec_tag_string", "-of", "csv=p=0", clip,
        ])
        XCTAssertEqual(String(decoding: probe.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "hevc,Main,hvc1")
        let check = try cli.run(["check-preset", clip, "--preset", "reels"])
        XCTAssertEqual(check.status, 0, check.stdout)
        let refused = try cli.run(["render", board, "--output", folder.file("tiktok"), "--preset", "tiktok", "--codec", "hevc",
                                   "--mp4", folder.file("tiktok.mp4")])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("works with reels and stories"), refused.stderr)
    }

    func testAFileThatBreaksLimitsFailsNamingEachLimit() throws {
        let folder = ScratchFolder()
        let file = folder.file("landscape.mp4")
        // 1280x720 at 15 fps, 4:4:4 (High 4:4:4 Predictive), x264's default GOP of 250, sound at 22.05 kHz.
        try ExternalProgram.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=1280x720:rate=15",
                                                    "-f", "lavfi", "-i", "sine=sample_rate=22050", "-t", "4",
                                                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv444p",
                                                    "-c:a", "aac", file])
        let reels = try cli.run(["check-preset", file, "--preset", "reels"])
        XCTAssertEqual(reels.status, 1, reels.stdout + reels.stderr)
        for line in ["size: 1280x720, reels needs 1080x1920", "frame rate: 15 fps, reels needs 23 to 60",
                     "pixel format: yuv444p", "profile: High 4:4:4 Predictive, reels needs High",
                     "audio sample rate: 22050 Hz"] {
            XCTAssertTrue(reels.stdout.contains(line), "\(line) in:\n\(reels.stdout)")
        }
        XCTAssertFalse(reels.stdout.contains("duration:"), "4 s is within 3 s to 15 min:\n\(reels.stdout)")
        let shorts = try cli.run(["check-preset", file, "--preset", "shorts"])
        XCTAssertEqual(shorts.status, 1)
        XCTAssertTrue(shorts.stdout.contains("GOP: 60 frames from keyframe to keyframe, shorts needs at most 8"), shorts.stdout)
        XCTAssertFalse(shorts.stdout.split(separator: "\n").contains { $0.hasPrefix("frame rate:") },
                       "YouTube takes 15 fps:\n\(shorts.stdout)")
    }

    func testCheckPresetUsageErrorsExitTwo() throws {
        let missing = try cli.run(["check-preset", "/nonexistent.mp4", "--preset", "reels"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("/nonexistent.mp4"), missing.stderr)
        let unknown = try cli.run(["check-preset", cli.demo, "--preset", "vine"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("--preset must be one of reels, stories, tiktok, shorts"), unknown.stderr)
    }

    func testPresetWithSizeOrFPSIsAUsageErrorNamingBoth() throws {
        let folder = ScratchFolder()
        for (flag, value) in [("--size", "180x320"), ("--fps", "10")] {
            let result = try cli.run(["render", cli.demo, "--output", folder.file("out"), "--preset", "reels",
                                      "--mp4", folder.file("a.mp4"), flag, value])
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains("--preset reels") && result.stderr.contains(flag), result.stderr)
        }
    }

    /// `--preset veryfast`, as commands written before platform presets say it, still renders,
    /// with a note that it is `--x264-preset` now.
    func testAnX264NameGivenToPresetStillWorksWithANote() throws {
        let folder = ScratchFolder()
        let result = try cli.run(["render", cli.demo, "--output", folder.file("out"), "--size", "90x160", "--fps", "5",
                                  "--duration", "1", "--no-png", "--mp4", folder.file("a.mp4"), "--preset", "veryfast"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("--x264-preset"), result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.file("a.mp4")))
    }
}
