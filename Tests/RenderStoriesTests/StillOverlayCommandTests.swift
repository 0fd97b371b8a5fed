import Compositor
import Foundation
import XCTest

/// `still` draws what the frame it shows draws, its overlay included.
final class StillOverlayCommandTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// A still draws the overlay a render's frame has at that page and time (the progress
    /// segments at that media time), unless --no-overlay; before, both files were identical.
    func testAStillDrawsTheOverlayOfTheFrameItShows() throws {
        let board = folder.file("one.json")
        FileManager.default.createFile(atPath: board, contents: Data("""
        {"canvas": {"width": 180, "height": 320, "fps": 10}, "duration": 2,
         "stories": [{"id": "a", "items": [{"uri": "\(CommandLineTests.packageRoot.path)/samples/beach.mp4"}, {"uri": "\(CommandLineTests.packageRoot.path)/samples/sunset.jpg"}]}]}
        """.utf8))
        XCTAssertEqual(try cli.run(["render", board, "--output", folder.file("r"), "--quiet"]).status, 0)
        XCTAssertEqual(try cli.run(["still", board, "--page", "0", "--time", "1.5", "--output", folder.file("with.png")]).status, 0)
        XCTAssertEqual(try cli.run(["still", board, "--page", "0", "--time", "1.5", "--no-overlay",
                                    "--output", folder.file("without.png")]).status, 0)
        let frame = try RGBAImage(contentsOfPNG: folder.file("r/frame-000015.png"))
        let with = try RGBAImage(contentsOfPNG: folder.file("with.png"))
        let without = try RGBAImage(contentsOfPNG: folder.file("without.png"))
        var sameAsFrame = 0, differsWithout = 0, total = 0
        for y in 0..<12 {
            for x in 0..<180 {
                total += 1
                if with[x, y].distance(to: frame[x, y]) <= 2 { sameAsFrame += 1 }
                if with[x, y].distance(to: without[x, y]) > 30 { differsWithout += 1 }
            }
        }
        XCTAssertEqual(sameAsFrame, total, "the segments row is the render's")
        XCTAssertGreaterThan(differsWithout, 50, "--no-overlay leaves the segments out")
    }
}
