import Foundation
import XCTest

/// Issue 30, item 2, through the CLI: a HEIC or AVIF photo (made by Debian's heif-enc) shows in
/// `still` and `render` as libheif's own `heif-convert` decodes it (both read back through
/// ImageMagick, `PhoneCamera.tolerance` on each cell's mean), and `probe` gives its codec and
/// size; a burst fails with why.
final class PhoneMediaCommandTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    func testStillAndRenderShowHEICAndAVIFAsHeifConvertDoes() throws {
        let source = try quadrants()
        for (name, options) in [("photo.heic", ["-q", "90"]), ("photo.avif", ["-A", "-q", "90"])] {
            let photo = folder.file(name)
            try ExternalProgram.run(TestPrograms.tool("heif-enc"), options + [source, "-o", photo])
            let reference = folder.file(name + "-reference.png")
            try ExternalProgram.run(TestPrograms.tool("heif-convert"), [photo, reference])
            let board = try PhoneCamera.storyboard(photo: photo, width: 96, height: 64, in: folder)
            let still = folder.file(name + "-still.png")
            let result = try cli.run(["still", board, "--page", "0", "--no-overlay", "--output", still])
            XCTAssertEqual(result.status, 0, result.stderr)
            try PhoneCamera.assertSameRegions(still, reference, width: 96, height: 64, "still, \(name)")
            let frames = folder.file(name + "-frames")
            let rendered = try cli.run(["render", board, "--no-overlay", "--output", frames, "--quiet"])
            XCTAssertEqual(rendered.status, 0, rendered.stderr)
            try PhoneCamera.assertSameRegions(frames + "/frame-000001.png", reference, width: 96, height: 64, "render, \(name)")

            let probe = try cli.run(["probe", "--json", photo])
            XCTAssertEqual(probe.status, 0, probe.stderr)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any])
            XCTAssertEqual(object["kind"] as? String, "picture")
            XCTAssertEqual(object["codec"] as? String, options.contains("-A") ? "av1" : "hevc")
            XCTAssertEqual([object["width"] as? Int, object["height"] as? Int], [192, 128])
            XCTAssertTrue(object.keys.contains("icc_profile"), probe.stdout)
        }
    }

    func testABurstFailsInProbeWithWhy() throws {
        let source = try quadrants()
        let burst = folder.file("burst.heic")
        try ExternalProgram.run(TestPrograms.tool("heif-enc"), ["-q", "50", source, source, source, "-o", burst])
        let probe = try cli.run(["probe", "--json", burst])
        XCTAssertNotEqual(probe.status, 0)
        XCTAssertTrue(probe.stdout.contains("holds 3 images (a HEIF burst or sequence)"), probe.stdout + probe.stderr)
    }

    /// `--version` names the photo libraries too, and libass (captions).
    func testVersionNamesLibheifAndLittleCMS() throws {
        let result = try cli.run(["--version"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        for pattern in [#"^libheif \d+\.\d+\.\d+$"#, #"^Little CMS 2\.\d+$"#, #"^libass 0\.\d+\.\d+$"#] {
            XCTAssertTrue(lines.contains { $0.range(of: pattern, options: .regularExpression) != nil }, "\(pattern): \(result.stdout)")
        }
    }

    /// The four quadrants as an RGB PNG (a palette PNG makes Debian 12's aom encoder abort).
    private func quadrants() throws -> String {
        let path = folder.file("quadrants.png")
        let (w, h) = (PhoneCamera.stored.width / 2, PhoneCamera.stored.height / 2)
        let colours = PhoneCamera.quadrants
        try ExternalProgram.run(TestPrograms.tool("convert"), ["-size", "\(w)x\(h)", "xc:\(colours[0])", "xc:\(colours[1])", "+append",
                                                          "(", "-size", "\(w)x\(h)", "xc:\(colours[2])", "xc:\(colours[3])", "+append", ")",
                                                          "-append", "PNG24:" + path])
        return path
    }
}
