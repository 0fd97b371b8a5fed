import Foundation
import XCTest

/// Issue 30, items 3 and 5, through the CLI: `probe` names an HDR video's transfer and
/// primaries, `still` shows it tone-mapped as ffmpeg maps it, and a storyboard naming a curve
/// the tone mapper does not know is refused before anything is rendered.
final class PhoneVideoCommandTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// A 0.5 s 10-bit HEVC HLG clip, 160x284, as a phone tags it.
    private func hlgClip() throws -> String {
        let path = folder.file("hlg.mp4")
        try ExternalProgram.run(TestPrograms.tool("ffmpeg"), [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x284:d=0.5:r=10", "-c:v", "libx265",
            "-x265-params", "log-level=error", "-pix_fmt", "yuv420p10le", "-profile:v", "main10", "-tag:v", "hvc1",
            "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", path,
        ])
        return path
    }

    func testProbeNamesTheTransferAndPrimariesOfAnHDRVideo() throws {
        let clip = try hlgClip()
        let json = try cli.run(["probe", "--json", clip])
        XCTAssertEqual(json.status, 0, json.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["transfer"] as? String, "arib-std-b67", json.stdout)
        XCTAssertEqual(object["primaries"] as? String, "bt2020", json.stdout)
        XCTAssertEqual(object["hdr"] as? Bool, true, json.stdout)
        let text = try cli.run(["probe", clip])
        XCTAssertTrue(text.stdout.contains("colour       arib-std-b67 transfer, bt2020 primaries, HDR"), text.stdout)
    }

    /// `still` of the clip with `"tonemap": "mobius"` against ffmpeg's `tonemap=mobius` of the
    /// same frame: every channel within 2 levels (both run the same filters on the same decoded
    /// picture; only the last planar-to-packed step is done by different code).
    func testStillShowsTheClipToneMappedWithTheItemsCurve() throws {
        let clip = try hlgClip()
        let board = folder.file("hdr.json")
        try Data("""
            {"canvas": {"width": 160, "height": 284}, "stories": [{"id": "hdr", "items": [{"uri": "hlg.mp4", "tonemap": "mobius"}]}]}
            """.utf8).write(to: URL(fileURLWithPath: board))
        let still = folder.file("still.png")
        let result = try cli.run(["still", board, "--page", "0", "--no-overlay", "--output", still])
        XCTAssertEqual(result.status, 0, result.stderr)
        let ffmpeg = try TestPrograms.tool("ffmpeg")
        let ours = try ExternalProgram.run(ffmpeg, ["-v", "error", "-i", still, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        let chain = "zscale=tin=arib-std-b67:pin=bt2020:min=bt2020nc:rin=tv:t=linear:npl=100,format=gbrpf32le,"
            + "zscale=p=bt709,tonemap=tonemap=mobius:desat=0,zscale=t=bt709,format=gbrp,format=rgb24"
        let theirs = try ExternalProgram.run(ffmpeg, ["-v", "error", "-i", clip, "-vf", chain, "-frames:v", "1", "-f", "rawvideo", "-"])
        XCTAssertEqual(ours.count, 160 * 284 * 3)
        XCTAssertEqual(ours.count, theirs.count)
        let worst = zip(ours, theirs).map { abs(Int($0) - Int($1)) }.max() ?? 0
        XCTAssertLessThanOrEqual(worst, 2)
    }

    func testAnUnknownCurveIsRefusedWithItsPathAndExitCode2() throws {
        let board = folder.file("bad.json")
        try Data("""
            {"stories": [{"id": "a", "items": [{"uri": "a.mp4", "tonemap": "filmic"}]}]}
            """.utf8).write(to: URL(fileURLWithPath: board))
        let result = try cli.run(["render", board, "--output", folder.file("out")])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("stories[0].items[0].tonemap"), result.stderr)
        XCTAssertTrue(result.stderr.contains("\"hable\", \"mobius\", \"reinhard\", \"clip\""), result.stderr)
    }
}
