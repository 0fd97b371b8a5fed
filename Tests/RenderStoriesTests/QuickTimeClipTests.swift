import Foundation
import XCTest

/// `--mp4 FILE.mov` writes the same H.264 and AAC in QuickTime's container (brand `qt  `), as a
/// phone's editor names its clips; any other name is still refused with the names it takes.
final class QuickTimeClipTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    func testAMovNameWritesAQuickTimeFile() throws {
        let board = try cli.smallBoard(in: folder)
        let mov = folder.file("clip.mov")
        let result = try cli.run(["render", board, "--no-png", "--quiet", "--mp4", mov, "--output", folder.file("out")])
        XCTAssertEqual(result.status, 0, result.stderr)
        let probe = try ExternalProgram.outcome(TestPrograms.tool("ffprobe"), [
            "-v", "error", "-show_entries", "format_tags=major_brand:stream=codec_name", "-of", "default=nw=1", mov,
        ])
        let said = String(decoding: probe.stdout, as: UTF8.self)
        XCTAssertTrue(said.contains("TAG:major_brand=qt"), said)
        XCTAssertTrue(said.contains("codec_name=h264"), said)
        XCTAssertTrue(said.contains("codec_name=aac"), said)

        let refused = try cli.run(["render", board, "--no-png", "--mp4", folder.file("clip.avi"), "--output", folder.file("out2")])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("give its name the .mp4 extension (or .mov, for QuickTime)"), refused.stderr)
    }
}
