import Compositor
import Foundation
import XCTest

/// `check-layout`, `--safe-zones` and `--burn-guides` as a user runs them (issue 32, items 4 and 5).
final class SafeZonesCommandTests: XCTestCase {
    let cli = CommandLineRunner()

    /// A dark photo, 180x320 at 10 fps for 1 s, with or without a caption.
    func board(_ folder: ScratchFolder, captions: String?) throws -> String {
        try RGBAImage(width: 180, height: 320, fill: RGBAColor(red: 20, green: 30, blue: 60)).writePNG(to: folder.file("dark.png"))
        _ = folder.write("talk.vtt", Array("WEBVTT\n\n00:00.000 --> 00:01.000\nHello\n".utf8))
        let key = captions.map { #", "captions": "\#($0)""# } ?? ""
        return folder.write("board.json", Array("""
        {"canvas": {"width": 180, "height": 320, "fps": 10}, "duration": 1,
         "stories": [{"id": "a", "items": [{"uri": "dark.png", "duration": 1\(key)}]}]}
        """.utf8))
    }

    func testCheckLayoutWarnsOnACaptionInTheBottom35PercentAndIsQuietWithout() throws {
        let folder = ScratchFolder()
        let warned = try cli.run(["check-layout", try board(folder, captions: "talk.vtt"), "--platform", "reels"])
        XCTAssertEqual(warned.status, 1, warned.stderr)
        XCTAssertEqual(warned.stdout, "stories[0].items[0].captions: the caption box (y 74–80 %) falls in reels' bottom 35 %\n")
        let placed = try cli.run(["check-layout", try board(folder, captions: "talk.vtt"), "--platform", "reels", "--safe-zones", "reels"])
        XCTAssertEqual(placed.status, 0, placed.stdout)
        let other = ScratchFolder()
        let quiet = try cli.run(["check-layout", try board(other, captions: nil), "--platform", "reels"])
        XCTAssertEqual(quiet.status, 0, quiet.stdout + quiet.stderr)
        XCTAssertEqual(quiet.stdout, "ok: no text in reels' zones\n")
    }

    func testUsageAndStoryboardErrorsExit2() throws {
        let folder = ScratchFolder()
        let board = try board(folder, captions: "talk.vtt")
        XCTAssertEqual(try cli.run(["check-layout", board, "--platform", "myspace"]).status, 2)
        XCTAssertEqual(try cli.run(["render", board, "--burn-guides", "-o", folder.file("out")]).status, 2)
        _ = folder.write("bad.srt", Array("1\n00:00:01,000 --> soon\nHi\n".utf8))
        let bad = try cli.run(["render", try self.board(folder, captions: "bad.srt"), "-o", folder.file("out")])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("error: stories[0].items[0].captions: "), bad.stderr)
        XCTAssertTrue(bad.stderr.contains("line 2: \"soon\" is not a time"), bad.stderr)
    }

    /// The guides reach a render's frames only with --burn-guides.
    func testGuidesAreBurnedIntoAnExportOnlyWhenAsked() throws {
        let folder = ScratchFolder()
        let board = try board(folder, captions: nil)
        XCTAssertEqual(try cli.run(["render", board, "--no-overlay", "--safe-zones", "reels", "-o", folder.file("plain")]).status, 0)
        XCTAssertEqual(try cli.run(["render", board, "--no-overlay", "--safe-zones", "reels", "--burn-guides", "-o", folder.file("burned")]).status, 0)
        let plain = try RGBAImage(contentsOfPNG: folder.file("plain/frame-000000.png"))
        let burned = try RGBAImage(contentsOfPNG: folder.file("burned/frame-000000.png"))
        let top = (10 * 180 + 90) * 4
        XCTAssertEqual(Array(plain.pixels[top..<top + 3]), [20, 30, 60])
        XCTAssertGreaterThan(burned.pixels[top], 60, "the top 14 % is tinted")
    }
}
