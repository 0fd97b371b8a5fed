import Foundation
import XCTest

/// An item's `volume` (a gain, or decibels) and `muted` reach the MP4's sound: half the gain
/// is 6 dB quieter, "-6dB" the same, muted is silence; a bad value names its JSON path.
final class ItemVolumeTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// A 2 s clip with a 440 Hz tone, and its story rendered to an MP4 with `keys` on the item;
    /// returns the MP4's mean volume in dB (ffmpeg's `volumedetect`).
    func meanVolume(_ keys: String, name: String) throws -> Double {
        let clip = folder.file("tone.mp4")
        if !FileManager.default.fileExists(atPath: clip) {
            try ExternalProgram.run(TestPrograms.tool("ffmpeg"), [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:size=90x160:rate=10", "-f", "lavfi",
                "-i", "sine=frequency=440:sample_rate=48000", "-t", "2", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                "-c:a", "aac", "-b:a", "128k", clip,
            ])
        }
        let board = folder.write("\(name).json", Array("""
        {"canvas": {"width": 90, "height": 160, "fps": 10}, "duration": 2,
         "stories": [{"id": "s", "items": [{"uri": "tone.mp4"\(keys)}]}]}
        """.utf8))
        let mp4 = folder.file("\(name).mp4")
        let result = try cli.run(["render", board, "--no-png", "--quiet", "--mp4", mp4, "--output", folder.file(name)])
        XCTAssertEqual(result.status, 0, result.stderr)
        let outcome = try ExternalProgram.outcome(TestPrograms.tool("ffmpeg"), ["-v", "info", "-ss", "0.3", "-t", "1.4", "-i", mp4,
                                                                               "-af", "volumedetect", "-vn", "-f", "null", "-"])
        let report = String(decoding: outcome.stderr, as: UTF8.self)
        return try XCTUnwrap(report.firstMatch(of: /mean_volume: (-?[\d.]+) dB/).flatMap { Double($0.1) }, report)
    }

    func testVolumeAndMutedReachTheClip() throws {
        let full = try meanVolume("", name: "full")
        XCTAssertGreaterThan(full, -30, "the tone is there")
        let half = try meanVolume(#", "volume": 0.5"#, name: "half")
        XCTAssertEqual(half - full, -6.02, accuracy: 0.5, "half the gain")
        let decibels = try meanVolume(#", "volume": "-6dB""#, name: "db")
        XCTAssertEqual(decibels, half, accuracy: 0.2, "-6 dB is a gain of 0.501")
        let louder = try meanVolume(#", "volume": 2"#, name: "double")
        XCTAssertEqual(louder - full, 6.02, accuracy: 0.5)
        let muted = try meanVolume(#", "muted": true"#, name: "muted")
        XCTAssertLessThan(muted, -80, "silence")
    }

    func testABadVolumeNamesItsPath() throws {
        for (value, said) in [("3", "3 is out of range"), (#""loud""#, #""loud" is not a gain"#), (#""+9dB""#, #""+9dB" is louder than +6 dB"#),
                              ("true", "got a boolean")] {
            let board = folder.write("bad.json", Array("""
            {"stories": [{"id": "s", "items": [{"uri": "x.mp4", "volume": \(value)}]}]}
            """.utf8))
            let result = try cli.run(["render", board, "--quiet", "--output", folder.file("bad")])
            XCTAssertEqual(result.status, 2, value)
            XCTAssertTrue(result.stderr.contains("stories[0].items[0].volume: " + said), result.stderr)
        }
    }
}
