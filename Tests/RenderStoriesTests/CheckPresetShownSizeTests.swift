import Foundation
import XCTest

/// `check-preset` holds a video's shown size to the preset (after its display matrix, as the
/// platforms show it) and names the stored size too (issue 61, item 3). The clips are made as a
/// phone makes them: the picture stored landscape, a display matrix turning it upright.
final class CheckPresetShownSizeTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// A 3.2 s H.264 High clip (x264's `ultrafast` would make it Constrained Baseline) stored `stored` (WxH), 30 fps, AAC at 48 kHz: within every limit
    /// of reels but the size. `rotate` is the display matrix's turn as FFmpeg 5.1's `rotate`
    /// tag writes it on a stream copy (270: a quarter turn clockwise, which ffprobe reports as
    /// rotation -90, as an iPhone's portrait clip); nil writes none.
    func clip(stored: String, rotate: Int?, name: String) throws -> String {
        let plain = folder.file("plain-\(stored).mp4")
        if !FileManager.default.fileExists(atPath: plain) {
            try ExternalProgram.run(TestPrograms.tool("ffmpeg"), [
                "-v", "error", "-y", "-f", "lavfi", "-i", "smptebars=size=\(stored):rate=30", "-f", "lavfi",
                "-i", "sine=sample_rate=48000", "-t", "3.2", "-c:v", "libx264", "-preset", "veryfast", "-crf", "35",
                "-profile:v", "high", "-pix_fmt", "yuv420p", "-c:a", "aac", plain,
            ])
        }
        guard let rotate else { return plain }
        let turned = folder.file(name)
        try ExternalProgram.run(TestPrograms.tool("ffmpeg"), ["-v", "error", "-y", "-i", plain, "-c", "copy",
                                                             "-metadata:s:v:0", "rotate=\(rotate)", turned])
        return turned
    }

    /// ffprobe's rotation of the clip's display matrix, to be sure the clip is what the test says.
    func rotation(_ file: String) throws -> String {
        let text = try ExternalProgram.run(TestPrograms.tool("ffprobe"), ["-v", "error", "-select_streams", "v:0",
                                                                         "-show_entries", "stream_side_data=rotation",
                                                                         "-of", "csv=p=0", file])
        return String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testAPortraitPhoneClipStoredLandscapeHoldsToReels() throws {
        let portrait = try clip(stored: "1920x1080", rotate: 270, name: "portrait.mp4")
        XCTAssertEqual(try rotation(portrait), "-90")
        let check = try cli.run(["check-preset", portrait, "--preset", "reels"])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertFalse(check.stdout.contains("size:"), check.stdout)
        XCTAssertTrue(check.stdout.contains("holds to every limit of reels"), check.stdout)
        XCTAssertTrue(check.stdout.contains("shown 1080x1920, stored 1920x1080"), check.stdout)
        // probe says the same shown size.
        let probe = try cli.run(["probe", "--json", portrait])
        XCTAssertTrue(probe.stdout.contains("\"width\": 1080") && probe.stdout.contains("\"height\": 1920"), probe.stdout)
    }

    func testAClipStoredUprightButTurnedOnItsSideIsRefusedNamingBothSizes() throws {
        let upright = try clip(stored: "1080x1920", rotate: nil, name: "upright.mp4")
        let plain = try cli.run(["check-preset", upright, "--preset", "reels"])
        XCTAssertEqual(plain.status, 0, plain.stdout + plain.stderr)
        XCTAssertFalse(plain.stdout.contains("stored"), "an unturned clip has one size: \(plain.stdout)")

        let sideways = try clip(stored: "1080x1920", rotate: 270, name: "sideways.mp4")
        let check = try cli.run(["check-preset", sideways, "--preset", "reels"])
        XCTAssertEqual(check.status, 1, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("size: 1920x1080 as shown (stored 1080x1920, turned a quarter by its display matrix), "
                                            + "reels needs 1080x1920"), check.stdout)
    }

    /// A half turn keeps the size: stored 1080x1920 upside down is still 1080x1920.
    func testAHalfTurnKeepsTheSize() throws {
        let upsideDown = try clip(stored: "1080x1920", rotate: 180, name: "upside-down.mp4")
        XCTAssertTrue(["180", "-180"].contains(try rotation(upsideDown)))
        let check = try cli.run(["check-preset", upsideDown, "--preset", "reels"])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
    }
}
