import Compositor
import Foundation
import XCTest

/// compare.html in a real browser: Debian's chromium, headless, driven over the DevTools
/// protocol by Tests/Support/Python/compare_check.py (real key presses and clicks).
final class CompareBrowserTests: XCTestCase {
    static let driver = CommandLineTests.packageRoot.appendingPathComponent("Tests/Support/Python/compare_check.py").path
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: ReportBrowserTests.chromium) else {
            throw XCTSkip("chromium is not installed (scripts/install-deps.sh --test installs it)")
        }
    }

    /// Two renders of a cube swipe, the second's a frame later and one of its frames marked:
    /// an insertion, a deletion, a changed frame and the players' events a frame later.
    func comparedRenders() throws -> String {
        let renders = SwipeRenders(cli: cli, folder: folder)
        let a = try renders.render("a", swipeAt: 0.5), b = try renders.render("b", swipeAt: 0.6)
        let marked = (b as NSString).appendingPathComponent("frame-000015.png")
        var frame = try RGBAImage(contentsOfPNG: marked)
        frame.fill(RGBAColor(red: 0, green: 255, blue: 0), columns: 30..<60, rows: 60..<90)
        try frame.writePNG(to: marked)
        let out = folder.file("page")
        let result = try cli.run(["compare", a, b, "--output", out])
        XCTAssertEqual(result.status, 1, result.stderr)
        // The marked frame is paired with one of A's (its neighbours all look alike) as changed.
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/compare.json"))) as? [String: Any]
        let frames = report?["frames"] as? [[String: Any]] ?? []
        let changed = try XCTUnwrap(frames.first { $0["verdict"] as? String == "changed" }, "\(frames)")
        XCTAssertEqual(changed["b"] as? Int, 15)
        let name = String(format: "%06d-%06d", changed["a"] as? Int ?? -1, 15)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/diff/\(name).png"), "the changed pair's difference")
        return out + "/compare.html"
    }

    func testComparePageInChromium() throws {
        let page = try comparedRenders()
        let seen = try ReportBrowserTests.runDriver(Self.driver, "file://" + page, screenshot: folder.file("shot.png"))
        XCTAssertEqual(seen["errors"] as? [String], [], "console errors and failed loads")
        XCTAssertEqual(seen["dom_errors"] as? String, "")
        XCTAssertEqual(seen["verdict"] as? String, "FAIL")
        func at(_ name: String) -> [String: Any] { seen[name] as? [String: Any] ?? [:] }
        // The scrubber's keys: the pair, its pictures and the playhead follow.
        XCTAssertEqual(at("start")["step"] as? Int, 0)
        XCTAssertEqual(at("start")["a_loaded"] as? Bool, true)
        XCTAssertEqual(at("start")["b_loaded"] as? Bool, true)
        XCTAssertEqual(at("after_three_right")["step"] as? Int, 3)
        XCTAssertTrue((at("after_three_right")["a"] as? String ?? "").hasSuffix("/a/frame-000003.png"))
        XCTAssertGreaterThan(at("after_three_right")["playhead"] as? Double ?? 0, at("start")["playhead"] as? Double ?? 1)
        // N goes to the first pair that is not the same: the frame inserted before the turn.
        XCTAssertTrue((at("after_next_difference")["position"] as? String ?? "").contains("inserted"), "\(at("after_next_difference"))")
        XCTAssertTrue((at("after_end")["position"] as? String ?? "").contains("deleted"))
        XCTAssertEqual(at("after_home")["step"] as? Int, 0)
        // The worst SSIM is the marked frame; a click on its mark shows it with its difference.
        let worst = try XCTUnwrap(seen["worst_step"] as? Int)
        XCTAssertEqual(at("after_worst_click")["step"] as? Int, worst)
        XCTAssertTrue((at("after_worst_click")["position"] as? String ?? "").contains("B 15): changed"), "\(at("after_worst_click"))")
        XCTAssertEqual(at("after_worst_click")["diff_loaded"] as? Bool, true)
        // The trace's differences: marks on the lanes, a list whose items jump to their frame.
        XCTAssertGreaterThanOrEqual(seen["lane_marks"] as? Int ?? 0, 4)
        // (From the first pair: the click must move the page there.)
        XCTAssertGreaterThan(seen["trace_item_step"] as? Int ?? 0, 0)
        XCTAssertEqual(at("after_trace_click")["step"] as? Int, seen["trace_item_step"] as? Int)
        let cells = seen["alignment_cells"] as? [String] ?? []
        XCTAssertEqual(cells.filter { $0 == "verdict-inserted" }.count, 1)
        XCTAssertEqual(cells.filter { $0 == "verdict-deleted" }.count, 1)
        XCTAssertEqual(cells.filter { $0 == "verdict-changed" }.count, 1)
    }
}
