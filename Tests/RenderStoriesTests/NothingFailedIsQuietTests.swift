import Foundation
import XCTest

/// Nothing that failed is quiet: `--quiet` still names the stories and participants that
/// failed, and every warning of a render (a missing file, captions that are not there, a room's
/// page action to a page it never has) is in summary.json's `notices` as well as on stderr.
final class NothingFailedIsQuietTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    private func write(_ text: String, to name: String) throws -> String {
        let path = folder.file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func sample(_ name: String) -> String {
        CommandLineTests.packageRoot.appendingPathComponent("samples/\(name)").path
    }

    private func notices(_ out: String) throws -> [String] {
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/summary.json")))
                                    as? [String: Any])
        return try XCTUnwrap(summary["notices"] as? [String])
    }

    func testQuietStillNamesAFailedStoryAndParticipant() throws {
        _ = try write("not a video", to: "broken.mp4")
        try FileManager.default.copyItem(atPath: sample("room-ana.mp4"), toPath: folder.file("ana.mp4"))
        _ = try write("not a video either", to: "ben.mp4")
        let board = try write("""
            {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 2,
             "stories": [{"id": "broken", "items": [{"uri": "broken.mp4", "duration": 1}]},
                         {"id": "panel", "room": {"participants": [{"id": "ana", "uri": "ana.mp4"}, {"id": "ben", "uri": "ben.mp4"}]},
                          "duration": 1}]}
            """, to: "board.json")
        let result = try cli.run(["render", board, "--output", folder.file("out"), "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "", "--quiet prints no summary line")
        XCTAssertTrue(result.stderr.contains("story broken failed: stories[0].items[0]: "), result.stderr)
        XCTAssertTrue(result.stderr.contains("participant ben of panel failed: "), result.stderr)
    }

    func testMissingFilesAndCaptionsAreNotices() throws {
        let board = try write("""
            {"canvas": {"width": 72, "height": 128, "fps": 10},
             "stories": [{"id": "a", "items": [{"uri": "\(sample("sunset.jpg"))", "duration": 1, "captions": "nope.vtt"}]},
                         {"id": "b", "items": [{"uri": "gone.jpg", "duration": 1}]}]}
            """, to: "board.json")
        let out = folder.file("out")
        let result = try cli.run(["render", board, "--output", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let notices = try notices(out)
        for expected in ["stories[0].items[0].captions: no such file \(folder.file("nope.vtt"))",
                         "stories[1].items[0].uri: no such file \(folder.file("gone.jpg"))"] {
            XCTAssertTrue(notices.contains(expected), "\(expected) in \(notices)")
            XCTAssertEqual(result.stderr.components(separatedBy: expected).count, 2, "said once on stderr: \(result.stderr)")
        }
    }

    func testAPageActionToAPageTheGridNeverHasIsANotice() throws {
        for name in ["ana", "ben", "cy"] {
            try FileManager.default.copyItem(atPath: sample("room-ana.mp4"), toPath: folder.file("\(name).mp4"))
        }
        let board = try write("""
            {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 1,
             "stories": [{"id": "panel", "duration": 1,
                          "room": {"layout": "grid", "tiles_per_page": 2,
                                   "participants": [{"id": "ana", "uri": "ana.mp4"}, {"id": "ben", "uri": "ben.mp4"}, {"id": "cy", "uri": "cy.mp4"}]}}],
             "script": [{"at": 0.5, "action": "page", "page": 5}]}
            """, to: "room.json")
        let out = folder.file("out")
        let result = try cli.run(["render", board, "--output", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let expected = #"script: the page action at 0.5 s asks for page 5 of story "panel"'s grid, which has at most 2 pages"#
        let notices = try notices(out)
        XCTAssertTrue(notices.contains { $0.hasPrefix(expected) }, "\(notices)")
        XCTAssertTrue(result.stderr.contains(expected), result.stderr)
    }
}
