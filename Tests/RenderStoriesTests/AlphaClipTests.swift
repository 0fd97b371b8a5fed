import Compositor
import Foundation
import XCTest

/// Clips that keep the frames' alpha: `--webm --alpha` (VP9, yuva420p) and `--mov --alpha`
/// (ProRes 4444), read back by ffmpeg, have the PNG frames' alpha; `--mov` alone is ProRes 422
/// HQ with PCM sound.
final class AlphaClipTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// A cube turn over a transparent background, 10 frames of 96x160: its faces opaque, the
    /// corners around them transparent, their edges anti-aliased in between.
    func renderTurn(_ extra: [String], alpha: Bool = true) throws -> String {
        try RGBAImage(width: 96, height: 160, fill: RGBAColor(red: 200, green: 60, blue: 40)).writePNG(to: folder.file("a.png"))
        try RGBAImage(width: 96, height: 160, fill: RGBAColor(red: 40, green: 90, blue: 210)).writePNG(to: folder.file("b.png"))
        let board = folder.write("turn.json", Array("""
        {"canvas": {"width": 96, "height": 160, "fps": 10, "background": "transparent"}, "duration": 1,
         "stories": [{"id": "a", "items": [{"uri": "a.png", "duration": 3}]}, {"id": "b", "items": [{"uri": "b.png", "duration": 3}]}],
         "script": [{"at": 0.1, "action": "drag", "to": 0.5, "over": 0.8}]}
        """.utf8))
        let out = folder.file("turn")
        let result = try cli.run(["render", board, "--no-overlay", "--quiet", "--output", out] + (alpha ? ["--alpha"] : []) + extra)
        XCTAssertEqual(result.status, 0, result.stderr)
        return out
    }

    /// Every frame's alpha as ffmpeg decodes `clip` (`decoder` forced where FFmpeg's own drops alpha).
    func alphaPlanes(_ clip: String, decoder: [String] = []) throws -> [[UInt8]] {
        let raw = try ExternalProgram.run(TestPrograms.tool("ffmpeg"), ["-v", "error"] + decoder + ["-i", clip, "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        let frame = 96 * 160 * 4
        return stride(from: 0, to: raw.count - frame + 1, by: frame).map { start in
            stride(from: start + 3, to: start + frame, by: 4).map { raw[$0] }
        }
    }

    func assertAlphaMatchesFrames(_ planes: [[UInt8]], folder out: String, label: String) throws {
        XCTAssertEqual(planes.count, 10, label)
        var worst = 0, partial = 0
        for (k, plane) in planes.enumerated() {
            let png = try RGBAImage(contentsOfPNG: out + String(format: "/frame-%06d.png", k))
            for i in 0..<(96 * 160) {
                let expected = Int(png.pixels[i * 4 + 3])
                if expected > 0 && expected < 255 { partial += 1 }
                worst = max(worst, abs(Int(plane[i]) - expected))
            }
        }
        XCTAssertGreaterThan(partial, 50, "\(label): the turn's edges are partly transparent")
        XCTAssertLessThanOrEqual(worst, 1, "\(label): alpha within 1 level of the PNG frames'")
    }

    func testAlphaSurvivesTheWebMAndTheMOV() throws {
        let webm = folder.file("turn.webm"), mov = folder.file("turn.mov")
        let out = try renderTurn(["--webm", webm, "--mov", mov])
        let transparent = try RGBAImage(contentsOfPNG: out + "/frame-000005.png")[0, 0]
        XCTAssertEqual(transparent.alpha, 0, "the corner mid-turn is transparent in the PNG")
        let said = try [mov, webm].map { clip in
            String(decoding: try ExternalProgram.run(TestPrograms.tool("ffprobe"), ["-v", "error", "-show_entries",
                "stream=codec_name,pix_fmt,profile:stream_tags=alpha_mode", "-of", "compact", clip]), as: UTF8.self)
        }.joined()
        XCTAssertTrue(said.contains("codec_name=prores|profile=4444"), said)
        XCTAssertTrue(said.contains("alpha_mode=1"), said)
        try assertAlphaMatchesFrames(try alphaPlanes(mov), folder: out, label: "ProRes 4444")
        // FFmpeg's own VP9 decoder leaves the alpha out; libvpx's reads it.
        try assertAlphaMatchesFrames(try alphaPlanes(webm, decoder: ["-c:v", "libvpx-vp9"]), folder: out, label: "VP9")
    }

    func testAMOVWithoutAlphaIsProRes422HQWithPCMSound() throws {
        let mov = folder.file("plain.mov")
        _ = try renderTurn(["--mov", mov, "--no-png"], alpha: false)
        let probe = try ExternalProgram.run(TestPrograms.tool("ffprobe"), ["-v", "error", "-show_entries", "stream=codec_name,pix_fmt,profile,codec_tag_string",
                                                                          "-of", "compact", mov])
        let said = String(decoding: probe, as: UTF8.self)
        XCTAssertTrue(said.contains("codec_name=prores|profile=HQ|codec_tag_string=apch|pix_fmt=yuv422p10le")
                      || said.contains("codec_name=prores|profile=HQ"), said)
        XCTAssertTrue(said.contains("codec_name=pcm_f32le"), said)
    }

    func testAlphaAndAV1AreRefused() throws {
        let board = folder.write("x.json", Array(#"{"stories": [{"id": "s", "items": [{"uri": "x.png"}]}]}"#.utf8))
        let result = try cli.run(["render", board, "--alpha", "--webm", folder.file("x.webm"), "--webm-codec", "av1", "--output", folder.file("x")])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("--alpha keeps the frames' alpha in a VP9 WebM only"), result.stderr)
    }
}
