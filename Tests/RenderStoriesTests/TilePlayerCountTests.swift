import Foundation
import XCTest

/// Issue 61 item 16: a grid room's tile players are counted where a user reads the render's
/// figures. A grid of seven in pages of four said "peak 0 players alive": its tiles are decoded
/// inside the room, not the viewer's players, so `peak_alive_players` rightly leaves them out,
/// and `peak_tile_players` now counts them beside it, in summary.json, the CLI's last line and
/// the report. `check --max-audio` names the participants whose sound players were over the
/// limit, and when.
final class TilePlayerCountTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// Seven participants (the sample's four recordings, three of them twice) in a grid of pages
    /// of four: page 1's four tiles play at once.
    func gridBoard() throws -> String {
        let samples = CommandLineTests.packageRoot.appendingPathComponent("samples").path
        let people = [("ana", "ana"), ("ben", "ben"), ("cy", "cy"), ("dee", "dee"), ("eve", "ana"), ("fay", "ben"), ("gus", "cy")]
        let list = people.map { #"{"id": "\#($0.0)", "uri": "\#(samples)/room-\#($0.1).mp4"}"# }.joined(separator: ", ")
        let board = folder.file("grid.json")
        try Data("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 1,
         "stories": [{"id": "panel", "room": {"participants": [\(list)], "layout": "grid", "tiles_per_page": 4}, "duration": 5}]}
        """.utf8).write(to: URL(fileURLWithPath: board))
        return board
    }

    func testTheSummaryAndTheCLICountAGridsTilePlayers() throws {
        let render = try cli.run(["render", try gridBoard(), "--output", folder.file("out")])
        XCTAssertEqual(render.status, 0, render.stderr)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("out/summary.json"))))
                                    as? [String: Any])
        XCTAssertEqual(summary["peak_alive_players"] as? Int, 0, "a grid's tiles are not the viewer's players")
        XCTAssertEqual(summary["peak_tile_players"] as? Int, 4, "page 1's four tiles")
        XCTAssertTrue(render.stdout.contains("peak 0 story players and 4 room tile players alive"), render.stdout)

        // A storyboard without rooms says it as before, and writes 0.
        let plain = try cli.run(["render", cli.demo, "--output", folder.file("demo"), "--frames", "0..10", "--quiet"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let demo = try String(contentsOfFile: folder.file("demo/summary.json"), encoding: .utf8)
        XCTAssertTrue(demo.contains(#""peak_tile_players": 0,"#), demo)
    }

    func testCheckMaxAudioNamesTheParticipantsAndWhen() throws {
        let render = try cli.run(["render", try gridBoard(), "--output", folder.file("out"), "--quiet"])
        XCTAssertEqual(render.status, 0, render.stderr)
        let check = try cli.run(["check", folder.file("out/lifecycle.jsonl"), "--max-audio", "2"])
        XCTAssertEqual(check.status, 1, check.stdout)
        let output = check.stdout + check.stderr
        // The third sound player to start is the first over the limit: named with the two before.
        XCTAssertTrue(output.contains("3 audio players alive at t=0 s, more than 2: ana (player "), output)
        for name in ["ben", "cy"] { XCTAssertTrue(output.contains(", \(name) (player "), "\(name): \(output)") }
        XCTAssertTrue(output.contains(", panel)"), output)
    }

    func testTheReportCountsTilePlayers() throws {
        guard FileManager.default.isExecutableFile(atPath: ReportBrowserTests.chromium) else { throw XCTSkip("chromium is not installed") }
        let render = try cli.run(["render", try gridBoard(), "--output", folder.file("out"), "--report", "--quiet"])
        XCTAssertEqual(render.status, 0, render.stderr)
        let dom = try ReportBrowserTests.renderedDOM(of: folder.file("out/report.html"),
                                                     options: ["--window-size=1400,1000", "--virtual-time-budget=3000"])
        XCTAssertTrue(dom.contains("peak 0 story players and 4 room tile players alive"), String(dom.prefix(3000)))
        XCTAssertTrue(dom.contains("tile players alive (peak 4)"), String(dom.suffix(3000)))
        XCTAssertTrue(dom.contains("panel · ana (tile)"), "a tile player's lane names it a tile")
    }
}
