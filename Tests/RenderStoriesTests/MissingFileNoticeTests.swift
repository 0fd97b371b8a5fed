import Foundation
import XCTest

/// A file missing from a storyboard is noticed once, however often the story plays.
final class MissingFileNoticeTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()
    let samples = CommandLineTests.packageRoot.appendingPathComponent("samples").path

    /// A missing file of a story further on is named once, with its JSON path: not again as a
    /// poster or metadata not loaded, nor as the story's failure.
    func testAMissingFileIsReportedOnce() throws {
        let board = folder.file("missing.json")
        try Data(#"{"duration": 2, "canvas": {"width": 72, "height": 128, "fps": 10}, "stories": [{"id": "s1", "items": [{"uri": "\#(samples)/beach.mp4", "duration": 0.5}]}, {"id": "s2", "items": [{"uri": "missing.mp4"}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: board))
        let result = try cli.run(["render", board, "--output", folder.file("m")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr.components(separatedBy: "missing.mp4").count - 1, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("stories[1].items[0].uri"), result.stderr)
        XCTAssertFalse(result.stderr.contains("not loaded"), result.stderr)
        // The failure is still in the summary, and --strict still stops.
        let summary = try String(contentsOfFile: folder.file("m/summary.json"), encoding: .utf8)
        XCTAssertTrue(summary.contains("s2"), summary)
        XCTAssertEqual(try cli.run(["render", board, "--output", folder.file("m2"), "--strict"]).status, 2)
    }
}
