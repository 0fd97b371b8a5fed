import Compositor
import Foundation
import XCTest

/// report.html in a real browser: Debian's chromium, headless, driven over the DevTools protocol
/// by Tests/Support/Python/report_check.py (real key presses and mouse clicks), from file:// and from a
/// static server.
final class ReportBrowserTests: XCTestCase {
    static let chromium = "/usr/bin/chromium"
    static let driver = CommandLineTests.packageRoot.appendingPathComponent("Tests/Support/Python/report_check.py").path

    var scratch: String!

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.chromium) else {
            throw XCTSkip("chromium is not installed (scripts/install-deps.sh --test installs it)")
        }
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("report-browser-\(UUID())").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(atPath: scratch) }
    }

    /// Three stories at 10 fps; the second's item is a file that does not exist, so it fails.
    func renderWithAFailedStory() throws -> String {
        let samples = CommandLineTests.packageRoot.appendingPathComponent("samples").path
        let board = scratch + "/board.json"
        try Data("""
        {"canvas": {"width": 90, "height": 160, "fps": 10, "background": "#101014"}, "duration": 3,
         "stories": [
           {"id": "beach", "items": [{"uri": "\(samples)/beach.mp4", "duration": 1}]},
           {"id": "gone", "items": [{"uri": "\(scratch!)/missing.mp4", "duration": 1}]},
           {"id": "city", "items": [{"uri": "\(samples)/city.mp4"}]}
         ]}
        """.utf8).write(to: URL(fileURLWithPath: board))
        let out = scratch + "/out"
        let result = try CommandLineRunner().run(["render", board, "--output", out, "--report", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/report.html"))
        return out
    }

    /// The page at `file` as headless chromium leaves it once its scripts have run
    /// (`--dump-dom`), with `options` (a time budget, a window size).
    static func renderedDOM(of file: String, options: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu"] + options + ["--dump-dom", "file://" + file]
        let dom = Pipe()
        process.standardOutput = dom
        process.standardError = FileHandle.nullDevice
        try process.run()
        let html = String(decoding: dom.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return html
    }

    /// Runs the driver; returns what it saw.
    func drive(_ target: String, screenshot: String) throws -> [String: Any] {
        try Self.runDriver(Self.driver, target, screenshot: screenshot)
    }

    /// Runs a browser check script (Tests/Support/Python) on `target`: what it printed, as an
    /// object, after asserting it exited 0 and reported nothing fatal.
    static func runDriver(_ script: String, _ target: String, screenshot: String,
                          file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, target, screenshot]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let seen = try JSONSerialization.jsonObject(with: stdout) as? [String: Any]
        XCTAssertEqual(process.terminationStatus, 0, stderr, file: file, line: line)
        let result = try XCTUnwrap(seen, "driver printed \(String(decoding: stdout, as: UTF8.self)) \(stderr)", file: file, line: line)
        XCTAssertNil(result["fatal"], "\(result)", file: file, line: line)
        return result
    }

    func testReportInChromium() throws {
        let out = try renderWithAFailedStory()
        // The frame the failed event is on, from the trace itself: round(t × fps).
        let trace = try String(contentsOfFile: out + "/lifecycle.jsonl", encoding: .utf8)
        let failed = try XCTUnwrap(trace.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first { $0["event"] as? String == "failed" })
        let failedFrame = Int(((failed["t"] as? Double ?? -1) * 10).rounded())
        XCTAssertEqual(failed["story"] as? String, "gone")

        for target in ["file://" + out + "/report.html", "serve:" + out] {
            let shot = scratch + "/shot.png"
            let seen = try drive(target, screenshot: shot)
            XCTAssertEqual(seen["errors"] as? [String], [], "console errors from \(target)")
            XCTAssertEqual(seen["dom_errors"] as? String, "", target)
            func at(_ step: String) -> (frame: Int, playhead: Double, src: String) {
                let p = seen[step] as? [String: Any] ?? [:]
                return (p["frame"] as? Int ?? -1, p["playhead"] as? Double ?? -1, p["src"] as? String ?? "")
            }
            // Keys: → three times, ← once; the picture, the number and the playhead all follow.
            XCTAssertEqual(at("start").frame, 0)
            XCTAssertEqual(at("after_three_right").frame, 3)
            XCTAssertEqual(at("after_three_right").src, "frame-000003.png")
            XCTAssertGreaterThan(at("after_three_right").playhead, at("start").playhead)
            XCTAssertEqual(at("after_one_left").frame, 2)
            XCTAssertLessThan(at("after_one_left").playhead, at("after_three_right").playhead)
            // Space plays (about six frames in 0.6 s at 10 fps) and pauses.
            XCTAssertGreaterThan(at("after_play_pause").frame, 2)
            XCTAssertEqual(seen["playing_after_pause"] as? String, "▶ Play")
            XCTAssertEqual(at("after_home").frame, 0)
            // A click on the failed mark lands on its frame.
            XCTAssertEqual((seen["failed_mark"] as? [String: Any])?["frame"] as? Int, failedFrame)
            XCTAssertEqual(at("after_click").frame, failedFrame)
            XCTAssertEqual(at("after_click").src, String(format: "frame-%06d.png", failedFrame))
            XCTAssertGreaterThan(at("after_click").playhead, at("after_home").playhead)
            try checkScreenshot(shot, seen)
        }
    }

    /// Loosely: the frame shows a picture, and the lanes are drawn (bars and marks in colours the
    /// page's background never has).
    func checkScreenshot(_ path: String, _ seen: [String: Any]) throws {
        let image = try RGBAImage(contentsOfPNG: path)
        XCTAssertEqual(image.width, 1280)
        XCTAssertGreaterThan(image.height, 600)
        func box(_ key: String) throws -> (x: Int, y: Int, width: Int, height: Int) {
            let b = try XCTUnwrap(seen[key] as? [String: Any])
            return (Int(b["x"] as? Double ?? 0), Int(b["y"] as? Double ?? 0),
                    Int(b["width"] as? Double ?? 0), Int(b["height"] as? Double ?? 0))
        }
        func colourful(in r: (x: Int, y: Int, width: Int, height: Int)) -> (count: Int, of: Int) {
            var count = 0, total = 0
            for y in max(0, r.y)..<min(image.height, r.y + r.height) {
                for x in max(0, r.x)..<min(image.width, r.x + r.width) {
                    let p = image[x, y]
                    let spread = Int(max(p.red, p.green, p.blue)) - Int(min(p.red, p.green, p.blue))
                    if spread > 60 { count += 1 }  // the page is greys; bars and marks are not
                    total += 1
                }
            }
            return (count, total)
        }
        let lanes = colourful(in: try box("lanes_box"))
        XCTAssertGreaterThan(lanes.of, 100_000, "the lanes are drawn at a useful size")
        XCTAssertGreaterThan(Double(lanes.count) / Double(lanes.of), 0.02, "bars and marks in the lane area")
        // The screenshot shows the failed story's dark error card: not colourful, but no blank box
        // either (a picture that did not load is one or two colours).
        let f = try box("frame_box")
        var colours = Set<RGBAColor>()
        for y in max(0, f.y)..<min(image.height, f.y + f.height) {
            for x in max(0, f.x)..<min(image.width, f.x + f.width) { colours.insert(image[x, y]) }
        }
        XCTAssertGreaterThan(f.width * f.height, 10_000, "the frame is shown at a useful size")
        XCTAssertGreaterThan(colours.count, 50, "the frame shows a picture")
    }

    /// Issue 56 item 4: a laid-out room's decisions in the report, as the browser draws it: a
    /// Layout section with each decision (layout, page, who is where, why) and the tile moves,
    /// and the decisions as marks on the timeline's lanes.
    func testTheReportListsARoomsLayoutDecisions() throws {
        let samples = CommandLineTests.packageRoot.appendingPathComponent("samples").path
        let board = scratch + "/room.json"
        let people = ["ana", "ben", "cy", "dee", "ana2", "ben2", "cy2"].map { id in
            #"{"id": "\#(id)", "uri": "\#(samples)/room-\#(id.filter { !$0.isNumber }).mp4"}"#
        }
        try Data("""
        {"canvas": {"width": 90, "height": 160, "fps": 10}, "duration": 2,
         "stories": [{"id": "panel", "room": {"participants": [\(people.joined(separator: ", "))], "layout": "grid", "tiles_per_page": 4}, "duration": 2}],
         "script": [{"action": "page", "at": 1, "page": 2}]}
        """.utf8).write(to: URL(fileURLWithPath: board))
        let out = scratch + "/out"
        let result = try CommandLineRunner().run(["render", board, "--output", out, "--report", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let html = try Self.renderedDOM(of: out + "/report.html", options: ["--virtual-time-budget=5000", "--user-data-dir=" + scratch + "/profile"])
        XCTAssertTrue(html.contains("Layout (0 tile moves)"), String(html.prefix(2000)))
        // Who is on which page follows the samples' voices at the start: the page's list is
        // checked by its shape, four then three.
        XCTAssertNotNil(html.range(of: #"grid page 1: \w+, \w+, \w+, \w+ — the room starts"#, options: .regularExpression), html)
        XCTAssertNotNil(html.range(of: #"grid page 2: \w+, \w+, \w+ — page action: page 2"#, options: .regularExpression), html)
        XCTAssertEqual(html.components(separatedBy: "data-kind=\"layout\"").count - 1, 2, "two layout marks on the lanes")
    }
}
