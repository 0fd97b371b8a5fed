import Foundation
import XCTest

/// A live room's storyboard as people write it by hand, from the docs' example, with the
/// mistakes they make: each is reported at its JSON path, all of them in one run, with exit 2
/// and no frame written; and a missing participant file is named before the render, which goes
/// on without that participant.
final class RoomStoryboardMistakesTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    func write(_ text: String, to name: String) throws -> String {
        let path = folder.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testEveryMistakeOfAHandWrittenRoomIsNamedAtItsPath() throws {
        let board = try write("""
        {"canvas": {"width": 72, "height": 128, "fps": 10},
         "stories": [
          {"id": "panel", "room": {"participant": [{"id": "ana", "uri": "ana.mp4"}]}},
          {"id": "call", "room": {"participants": [{"id": "ben", "url": "rtmp://127.0.0.1/live/ben"}]}},
          {"id": "talk", "room": {"participants": [{"id": "cy", "uri": "cy.mp4", "pinned": "yes"}, {"id": "cy", "uri": "dee.mp4"}]}},
          {"id": "show", "room": {"participants": [{"id": "eve", "uri": "eve.mp4"}], "duration": 20}}],
         "script": [{"at": 1, "action": "pin", "participant": "zed"}]}
        """, to: "room.json")
        let output = folder.file("out")
        let result = try cli.run(["render", board, "--output", output])
        XCTAssertEqual(result.status, 2, result.stderr)
        for expected in [
            #"stories[0].room.participant: unknown key; did you mean "participants"?"#,
            #"stories[1].room.participants[0].url: unknown key; did you mean "uri"?"#,
            "stories[2].room.participants[0].pinned: expected a boolean, got a string",
            #"stories[2].room.participants[1].id: duplicate id "cy" (also participants[0].id)"#,
            #"stories[3].room.duration: a room lasts its story's "duration": put it beside "room", at stories[3].duration"#,
        ] {
            XCTAssertTrue(result.stderr.contains(expected), "expected \(expected) in:\n\(result.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output + "/frame-000000.png"), "nothing is rendered")
    }

    /// The same room written right, but one participant's file misspelt: a warning with its path
    /// before the render, the room plays with the others, and `--strict` refuses it (exit 2).
    func testAMissingParticipantFileIsNamedAndTheRoomGoesOn() throws {
        let sample = URL(fileURLWithPath: cli.demo).deletingLastPathComponent().appendingPathComponent("room-ana.mp4").path
        try FileManager.default.copyItem(atPath: sample, toPath: folder.file("ana.mp4"))
        let board = try write("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 1,
         "stories": [{"id": "panel", "room": {"participants": [{"id": "ana", "uri": "ana.mp4"}, {"id": "ben", "uri": "bne.mp4"}]},
                      "duration": 20}]}
        """, to: "room.json")
        let output = folder.file("out")
        let result = try cli.run(["render", board, "--output", output])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("warning: stories[0].room.participants[1].uri: no such file \(folder.file("bne.mp4"))"),
                      result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: output + "/frame-000009.png"))
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output + "/summary.json")))
                                    as? [String: Any])
        let failed = try XCTUnwrap(summary["failed_participants"] as? [[String: Any]])
        XCTAssertEqual(failed.map { $0["participant"] as? String }, ["ben"])
        XCTAssertEqual(summary["failed_stories"] as? [String], [], "a room with a failed participant is not a failed story")
        // `--strict` makes the warning an error, before anything is rendered.
        let strict = try cli.run(["render", board, "--output", folder.file("strict"), "--strict"])
        XCTAssertEqual(strict.status, 2, strict.stderr)
        XCTAssertTrue(strict.stderr.contains("error: stories[0].room.participants[1].uri: no such file"), strict.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("strict") + "/frame-000000.png"))
    }
}
