import Compositor
import Foundation
import XCTest

/// `--alpha` with a background that is not opaque, from the command line (issue "What a new
/// user ran into", item 7: `--alpha` wrote RGBA that was opaque everywhere).
final class TransparentFrameTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// Two photos and a swipe at 0.1 s taking 0.4 s: frame 3 (t = 0.3) is mid-turn.
    func board(background: String) -> String {
        let samples = CommandLineTests.packageRoot.appendingPathComponent("samples").path
        let path = folder.file("turn.json")
        let json = """
        {"canvas": {"width": 90, "height": 160, "fps": 10, "background": "\(background)"},
         "transition": {"duration": 0.4}, "duration": 1,
         "stories": [{"id": "a", "items": [{"uri": "\(samples)/sunset.jpg"}]},
                     {"id": "b", "items": [{"uri": "\(samples)/home.jpg"}]}],
         "script": [{"at": 0.1, "action": "swipe", "direction": "next"}]}
        """
        FileManager.default.createFile(atPath: path, contents: Data(json.utf8))
        return path
    }

    /// The PNG's colour type (IHDR byte 25): 6 for RGBA, 2 for RGB.
    func colourType(_ path: String) throws -> UInt8 {
        try Data(contentsOf: URL(fileURLWithPath: path))[25]
    }

    func testRenderKeepsTheAreaAroundTheCubeTransparent() throws {
        let out = folder.file("alpha")
        let result = try cli.run(["render", board(background: "transparent"), "--alpha", "--frames", "3", "--output", out, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let frame = out + "/frame-000003.png"
        XCTAssertEqual(try colourType(frame), 6)
        let image = try RGBAImage(contentsOfPNG: frame)
        XCTAssertEqual(image[1, 1].alpha, 0, "above the receding faces, mid-turn")
        XCTAssertEqual(image[88, 158].alpha, 0, "below them")
        XCTAssertEqual(image[45, 80].alpha, 255, "the faces are opaque")
        let edge = (0..<160).flatMap { y in (0..<90).map { image[$0, y] } }.filter { $0.alpha > 0 && $0.alpha < 255 }
        XCTAssertGreaterThan(edge.count, 10, "the faces' edges are anti-aliased in alpha")
    }

    /// `--background` overrides the storyboard's, and a partly transparent one keeps its alpha.
    func testABackgroundWithAlphaFromTheCommandLine() throws {
        let out = folder.file("half")
        let result = try cli.run(["render", board(background: "#000000"), "--background", "#10203080", "--alpha",
                                  "--frames", "3", "--output", out, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let image = try RGBAImage(contentsOfPNG: out + "/frame-000003.png")
        XCTAssertEqual(image[1, 1], RGBAColor(red: 0x10, green: 0x20, blue: 0x30, alpha: 0x80))
    }

    /// Without --alpha the file is RGB and the transparent area is black (over black, as a
    /// phone shows a transparent photo), not the colour under alpha 0.
    func testWithoutAlphaATransparentBackgroundIsFlattenedOverBlack() throws {
        let out = folder.file("rgb")
        let result = try cli.run(["render", board(background: "#ff000000"), "--frames", "3", "--output", out, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try colourType(out + "/frame-000003.png"), 2)
        XCTAssertEqual(try RGBAImage(contentsOfPNG: out + "/frame-000003.png")[1, 1], .black)
    }

    /// The clip and the contact sheet are flattened over black whatever --alpha says: an H.264
    /// clip has no alpha, and a sheet is for looking at. The background is green at alpha 0, so
    /// an area left unflattened would show green.
    func testTheClipAndContactSheetAreFlattenedOverBlack() throws {
        let out = folder.file("flat")
        let clip = folder.file("flat.mp4"), sheet = folder.file("sheet.png")
        let result = try cli.run(["render", board(background: "#00ff0000"), "--alpha", "--mp4", clip,
                                  "--contact-sheet", sheet, "--sheet-frames", "10", "--output", out, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try RGBAImage(contentsOfPNG: out + "/frame-000003.png")[1, 1].alpha, 0, "the frames keep their alpha")

        XCTAssertEqual(try colourType(sheet), 2, "the sheet is RGB")
        let picture = try RGBAImage(contentsOfPNG: sheet)
        var green = 0, black = 0
        for y in 0..<picture.height {
            for x in 0..<picture.width {
                let pixel = picture[x, y]
                if pixel.green > 200 && pixel.red < 60 && pixel.blue < 60 { green += 1 }
                if pixel == .black { black += 1 }
            }
        }
        XCTAssertEqual(green, 0, "no background green on the sheet")
        XCTAssertGreaterThan(black, 100, "the mid-turn cells show black around the faces")

        // Frame 3 of the clip, mid-turn, decoded by the ffmpeg CLI: its corner is black.
        let decode = Process()
        decode.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        decode.arguments = ["-v", "error", "-i", clip, "-vf", "select=eq(n\\,3)", "-frames:v", "1",
                            "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        let output = Pipe()
        decode.standardOutput = output
        try decode.run()
        let rgb = [UInt8](output.fileHandleForReading.readDataToEndOfFile())
        decode.waitUntilExit()
        XCTAssertEqual(rgb.count, 90 * 160 * 3, "one 90x160 frame")
        guard rgb.count == 90 * 160 * 3 else { return }
        let corner = Array(rgb[(90 + 1) * 3..<(90 + 1) * 3 + 3])
        XCTAssertTrue(corner.allSatisfy { $0 < 40 }, "the clip's corner is black, not green: \(corner)")
    }

    /// `still` takes render's PNG options, --alpha among them.
    func testStillTakesThePNGOptionsOfRender() throws {
        let path = folder.file("mid.png")
        let result = try cli.run(["still", cli.demo, "--page", "0.5", "--time", "1.2", "--size", "180x320", "--background", "transparent",
                                  "--alpha", "--png-level", "9", "--png-filter", "paeth", "--png-strategy", "default", "--output", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try colourType(path), 6)
        let image = try RGBAImage(contentsOfPNG: path)
        XCTAssertEqual(image[1, 1], .transparent, "the top corners are background: the faces recede there")
        XCTAssertEqual(image[90, 160].alpha, 255)
        let opaque = folder.file("opaque.png")
        let plain = try cli.run(["still", cli.demo, "--page", "0.5", "--size", "180x320", "--background", "transparent", "--output", opaque])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(try colourType(opaque), 2)
        XCTAssertEqual(try RGBAImage(contentsOfPNG: opaque)[1, 1], .black)
    }

    func testABadColourIsAUsageErrorNamingTheFlagOrThePath() throws {
        for command in [["render", cli.demo, "--output", folder.file("r")], ["still", cli.demo, "--page", "0", "--output", folder.file("s.png")]] {
            let result = try cli.run(command + ["--background", "#12"])
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains("--background #12: expected a colour (\"#RGB\""), result.stderr)
        }
        let result = try cli.run(["render", board(background: "#1234567"), "--output", folder.file("b")])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("canvas.background: expected a colour"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("r")))
    }
}
