import Foundation
import XCTest

/// A room as the CLI shows it: a failed participant under `--strict`, the report page and the
/// timeline of a room.
final class RoomCommandOutputTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// A room of the sample's ana and ben, and `gone`, whose file is not a video (a missing
    /// file would stop a `--strict` render before its first frame, as any missing file does).
    func roomBoard() throws -> String {
        try Data("not a video".utf8).write(to: URL(fileURLWithPath: folder.file("broken.mp4")))
        let samples = CommandLineTests.packageRoot.appendingPathComponent("samples").path
        let board = folder.file("room.json")
        try Data("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 1,
         "stories": [{"id": "panel", "room": {"participants": [
           {"id": "ana", "uri": "\(samples)/room-ana.mp4"}, {"id": "ben", "uri": "\(samples)/room-ben.mp4"},
           {"id": "gone", "uri": "\(folder.path)/broken.mp4"}]}, "duration": 5}]}
        """.utf8).write(to: URL(fileURLWithPath: board))
        return board
    }

    /// 6. The room goes on: exit 0, and stderr names the failed participant, not "item 0";
    /// `--strict` counts it (exit 3).
    func testAFailedParticipantIsReportedAndCountedByStrict() throws {
        let board = try roomBoard()
        let plain = try cli.run(["render", board, "--output", folder.file("plain")])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertTrue(plain.stderr.contains("participant gone of panel failed:"), plain.stderr)
        XCTAssertFalse(plain.stderr.contains("story panel failed"), plain.stderr)
        XCTAssertFalse(plain.stderr.contains("item 0"), plain.stderr)
        let summary = try String(contentsOfFile: folder.file("plain/summary.json"), encoding: .utf8)
        XCTAssertTrue(summary.contains(#""failed_stories": [],"#), summary)
        XCTAssertTrue(summary.contains(#""failed_participants": [{"story": "panel", "participant": "gone""#), summary)

        let strict = try cli.run(["render", board, "--output", folder.file("strict"), "--strict", "--quiet"])
        XCTAssertEqual(strict.status, 3, "--strict counts a failed participant: \(strict.stderr)")
    }

    /// 5. The timeline agrees with `check`: its red band counts video players only, and
    /// `--max-audio` bounds the audio ones.
    func testTheTimelineTakesMaxAudio() throws {
        let board = try roomBoard()
        let render = try cli.run(["render", board, "--output", folder.file("out"), "--quiet"])
        XCTAssertEqual(render.status, 0, render.stderr)
        let trace = folder.file("out/lifecycle.jsonl")
        let check = try cli.run(["check", trace, "--max-audio", "3"])
        XCTAssertEqual(check.status, 0, check.stdout)
        let drawn = try cli.run(["timeline", trace, "--max-audio", "3", "--output", folder.file("t.png")])
        XCTAssertEqual(drawn.status, 0, drawn.stderr)
    }

    /// 5. The report page's count of players alive is check's: video players (peak 1 in a room),
    /// and the audio players counted apart; each audio lane is labelled with its participant.
    func testTheReportCountsVideoAndAudioPlayersApart() throws {
        guard FileManager.default.isExecutableFile(atPath: ReportBrowserTests.chromium) else { throw XCTSkip("chromium is not installed") }
        let board = try roomBoard()
        let render = try cli.run(["render", board, "--output", folder.file("out"), "--report", "--quiet"])
        XCTAssertEqual(render.status, 0, render.stderr)
        let dom = try ReportBrowserTests.renderedDOM(of: folder.file("out/report.html"),
                                                     options: ["--window-size=1400,1000", "--virtual-time-budget=3000"])
        XCTAssertTrue(dom.contains("video players alive (peak 1)"), String(dom.suffix(3000)))
        XCTAssertTrue(dom.contains("audio players alive (peak 3)"), String(dom.suffix(3000)))
        XCTAssertFalse(dom.contains("peak 4"), String(dom.suffix(3000)))
        for participant in ["ana", "ben", "gone"] {
            XCTAssertTrue(dom.contains("panel · \(participant) (audio)"), "a lane labelled \(participant)")
        }
        XCTAssertTrue(dom.contains("<h3>Failed participants</h3>"), String(dom.suffix(3000)))
    }
}
