import Foundation
import StoryPlayer
import XCTest

/// report.html as generated: the data it embeds, the escaping that keeps that data inert, and
/// `render-stories report`'s exits.
final class ReportPageTests: XCTestCase {
    static let trace = """
    {"t": 0, "wall": 0.01, "event": "play", "story": "beach", "item": 0, "player": 1}
    {"t": 0.1, "wall": 0.02, "event": "firstFrame", "story": "beach", "item": 0, "player": 1, "open_ms": 1, "first_packet_ms": 2, "first_frame_ms": 3}
    {"t": 1.2, "wall": 0.5, "event": "speaker", "story": "live", "player": 1, "level": 0.7}
    not json at all
    {"t": 1.5, "wall": 0.6, "event": "failed", "story": "beach", "item": 0, "player": 1, "error": "cannot open x.mp4"}
    {"t": 2, "wall": 0.7, "event": "stop", "story": "beach", "item": 0, "player": 1, "pictures": 3}

    """

    /// The JSON document in the page's data element, parsed as the page's script parses it.
    static func embeddedData(_ html: String) throws -> [String: Any] {
        let open = "<script type=\"application/json\" id=\"\(ReportPage.dataElementID)\">"
        let start = try XCTUnwrap(html.range(of: open), "no data element")
        let end = try XCTUnwrap(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let text = String(html[start.upperBound..<end.lowerBound])
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func testEmbeddedDataRoundTrips() throws {
        let summary = #"{"frames": 30, "timeline_fps": 10, "stories": [{"id": "beach", "failures": 1}], "notices": ["n1"]}"#
        let page = ReportPage(trace: Self.trace, summary: summary, fps: 10, frames: 0...29, clip: "../clips/a%20b.mp4",
                              maxAlive: 3, notices: ["assumed"])
        let data = try Self.embeddedData(page.html)
        XCTAssertEqual(data["fps"] as? Double, 10)
        XCTAssertEqual(data["first_frame"] as? Int, 0)
        XCTAssertEqual(data["last_frame"] as? Int, 29)
        XCTAssertEqual(data["clip"] as? String, "../clips/a%20b.mp4")
        XCTAssertEqual(data["max_alive"] as? Int, 3)
        let events = try XCTUnwrap(data["events"] as? [[String: Any]])
        // Every line TraceEvent reads, and the future kind `speaker` with its own field; the line
        // that is not JSON is left out, with a notice saying which.
        XCTAssertEqual(events.map { $0["event"] as? String }, ["play", "firstFrame", "speaker", "failed", "stop"])
        XCTAssertEqual(events[2]["level"] as? Double, 0.7)
        XCTAssertEqual(events[3]["error"] as? String, "cannot open x.mp4")
        let notices = try XCTUnwrap(data["notices"] as? [String])
        XCTAssertEqual(notices.first, "assumed")
        XCTAssertTrue(notices.contains { $0.hasPrefix("trace line 4 left out") }, "\(notices)")
        let embeddedSummary = try XCTUnwrap(data["summary"] as? [String: Any])
        XCTAssertEqual(embeddedSummary["frames"] as? Int, 30)
        XCTAssertEqual(embeddedSummary["notices"] as? [String], ["n1"])
        // The check as `render-stories check` runs it: the bad line and the unknown kind are violations.
        let check = try XCTUnwrap(data["check"] as? [String: Any])
        XCTAssertEqual(check["ok"] as? Bool, false)
        XCTAssertEqual((check["violations"] as? [String])?.count,
                       TraceCheck.check(Self.trace, maxAlive: 3).count)
    }

    func testCleanTraceChecksOK() throws {
        let trace = Self.trace.split(separator: "\n").filter { !$0.contains("speaker") && !$0.contains("not json") }
            .joined(separator: "\n")
        let data = try Self.embeddedData(ReportPage(trace: trace, summary: nil, fps: 10, frames: nil).html)
        XCTAssertEqual((data["check"] as? [String: Any])?["ok"] as? Bool, true)
        XCTAssertTrue(data["summary"] is NSNull)
        XCTAssertTrue(data["first_frame"] is NSNull)
    }

    func testStoryIDCannotEndTheScriptElement() throws {
        let id = "</script><script>alert(1)</script><!--"
        let trace = #"{"t": 0, "wall": 0, "event": "play", "story": "\#(id.replacingOccurrences(of: "/", with: "\\/"))", "item": 0, "player": 1}"#
            + "\n" + #"{"t": 1, "wall": 0, "event": "stop", "story": "</script>", "item": 0, "player": 1}"#
        let summary = #"{"stories": [{"id": "</script><script>alert(2)</script>"}]}"#
        let html = ReportPage(trace: trace, summary: summary, fps: 30, frames: 0...29).html
        // The page has its two script elements and no third; the data block holds no `<` at all.
        XCTAssertEqual(html.components(separatedBy: "<script").count - 1, 2)
        XCTAssertEqual(html.components(separatedBy: "</script>").count - 1, 2)
        let data = try Self.embeddedData(html)
        let events = try XCTUnwrap(data["events"] as? [[String: Any]])
        XCTAssertEqual(events.map { $0["story"] as? String }, [id, "</script>"])
        let stories = (data["summary"] as? [String: Any])?["stories"] as? [[String: Any]]
        XCTAssertEqual(stories?.first?["id"] as? String, "</script><script>alert(2)</script>")
    }

    func testRelativeClipURL() {
        XCTAssertEqual(ReportPage.relativeURL(of: "/tmp/a/out/clip.mp4", from: "/tmp/a/out"), "clip.mp4")
        XCTAssertEqual(ReportPage.relativeURL(of: "/tmp/a/clips/my clip#1.mp4", from: "/tmp/a/out/"),
                       "../clips/my%20clip%231.mp4")
        XCTAssertEqual(ReportPage.relativeURL(of: "/tmp/x.mp4", from: "/tmp/a/out"), "../../x.mp4")
    }

    // MARK: - render-stories report

    func testReportOfAFolderTakesFPSFromTheSummaryAndFindsTheClip() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(Self.trace.utf8).write(to: URL(fileURLWithPath: folder + "/lifecycle.jsonl"))
        try Data(#"{"frames": 3, "timeline_fps": 12.5}"#.utf8).write(to: URL(fileURLWithPath: folder + "/summary.json"))
        for name in ["frame-000004.png", "frame-000006.png", "clip.mp4", "notes.txt"] {
            FileManager.default.createFile(atPath: folder + "/" + name, contents: Data())
        }
        let result = try CommandLineRunner().run(["report", folder, "--max-alive", "1"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        let data = try Self.embeddedData(html)
        XCTAssertEqual(data["fps"] as? Double, 12.5)
        XCTAssertEqual(data["first_frame"] as? Int, 4)
        XCTAssertEqual(data["last_frame"] as? Int, 6)
        XCTAssertEqual(data["clip"] as? String, "clip.mp4")
        XCTAssertEqual(data["max_alive"] as? Int, 1)

        // An older summary without timeline_fps: 30 is assumed, and the page says so; --fps wins.
        try Data(#"{"frames": 3}"#.utf8).write(to: URL(fileURLWithPath: folder + "/summary.json"))
        XCTAssertEqual(try CommandLineRunner().run(["report", folder]).status, 0)
        let assumed = try Self.embeddedData(String(contentsOfFile: folder + "/report.html", encoding: .utf8))
        XCTAssertEqual(assumed["fps"] as? Double, 30)
        XCTAssertTrue((assumed["notices"] as? [String] ?? []).contains { $0.contains("assumed 30") })
        XCTAssertEqual(try CommandLineRunner().run(["report", folder, "--fps", "24"]).status, 0)
        let given = try Self.embeddedData(String(contentsOfFile: folder + "/report.html", encoding: .utf8))
        XCTAssertEqual(given["fps"] as? Double, 24)
    }

    func testReportErrors() throws {
        let missing = try CommandLineRunner().run(["report", "/no/such/folder"])
        // A folder that is not a render's is a usage error, as a missing trace is for `check`;
        // 1 is for a page that cannot be written.
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("/no/such/folder is not a folder"), missing.stderr)
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("report-empty-\(UUID())").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let noTrace = try CommandLineRunner().run(["report", empty])
        XCTAssertEqual(noTrace.status, 2)
        XCTAssertTrue(noTrace.stderr.contains("no readable lifecycle.jsonl"), noTrace.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: empty + "/report.html"))
        XCTAssertEqual(try CommandLineRunner().run(["report", empty, "--max-alive", "0"]).status, 2)
        XCTAssertEqual(try CommandLineRunner().run(["report", empty, "--fps", "0"]).status, 2)
        XCTAssertEqual(try CommandLineRunner().run(["report"]).status, 2)
    }
}
