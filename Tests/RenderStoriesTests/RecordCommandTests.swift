import Foundation
import XCTest

/// `record` given what a user writes by hand: a storyboard with mistakes, outputs it cannot
/// make. Each is refused before anything is recorded, with exit 2 and words that name the place
/// of the mistake (the JSON path, the option), and nothing is left on disk: not the output
/// folder, not a temporary file.
final class RecordCommandTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    private func refused(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let out = folder.file("out")
        let result = try cli.run(["record"] + arguments + ["--output", out])
        XCTAssertEqual(result.status, 2, result.stderr, file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing written for a refused recording", file: file, line: line)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        XCTAssertEqual(left.filter { $0.contains(".tmp") }, [], file: file, line: line)
        return result.stderr
    }

    /// A room written by hand with mistakes: a participant without `uri`, a `live` that is a
    /// string; then a layout that does not exist. Each is named by its JSON path, as `render`
    /// names them.
    func testABrokenRoomIsNamedByItsJSONPathsAndNothingIsRecorded() throws {
        let board = folder.file("room.json")
        try Data(#"""
        {"canvas": {"width": 72, "height": 128, "fps": 10},
         "stories": [{"id": "panel", "room": {"participants": [
           {"id": "ana", "uri": "rtmp://127.0.0.1:1/live/ana", "live": "yes"},
           {"id": "ben"}]}}]}
        """#.utf8).write(to: URL(fileURLWithPath: board))
        let said = try refused([board, "--hls", folder.file("hls")])
        for path in ["stories[0].room.participants[0].live", "stories[0].room.participants[1].uri"] {
            XCTAssertTrue(said.contains(path), "names \(path): \(said)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("hls")), "no HLS folder made")
        let layout = folder.file("layout.json")
        try Data(#"""
        {"stories": [{"id": "panel", "room": {"layout": "grdi", "participants": [{"id": "ana", "uri": "rtmp://127.0.0.1:1/live/ana", "live": true}]}}]}
        """#.utf8).write(to: URL(fileURLWithPath: layout))
        let saidOfLayout = try refused([layout, "--push", "rtmp://127.0.0.1:1/live/out"])
        XCTAssertTrue(saidOfLayout.contains(#"stories[0].room.layout: "grdi" is not one of"#), saidOfLayout)
    }

    /// JSON that does not parse says where (line and column), and a board that is not there
    /// says so: exit 2 either way.
    func testUnreadableBoardsSayWhy() throws {
        let board = folder.file("cut.json")
        try Data(#"{"stories": [{"items": [{"uri": "a.mp4"}]}"#.utf8).write(to: URL(fileURLWithPath: board))
        let said = try refused([board, "--hls", folder.file("hls")])
        XCTAssertTrue(said.contains("cut.json"), said)
        let missing = try refused([folder.file("nope.json"), "--hls", folder.file("hls")])
        XCTAssertTrue(missing.contains("nope.json: no such file"), missing)
    }

    /// Outputs it cannot make are usage errors that name the option: none at all, a push to a
    /// protocol it does not push, a segment length out of range.
    func testOutputsItCannotMakeAreUsageErrors() throws {
        let board = try cli.smallBoard(in: folder)
        let none = try refused([board])
        XCTAssertTrue(none.contains("--hls") && none.contains("--push"), "says which outputs there are: \(none)")
        let ftp = try refused([board, "--push", "ftp://127.0.0.1/live"])
        XCTAssertTrue(ftp.contains("ftp://127.0.0.1/live"), ftp)
        let zero = try refused([board, "--hls", folder.file("hls"), "--hls-segment", "0"])
        XCTAssertTrue(zero.contains("--hls-segment"), zero)
    }
}
