import Foundation
import XCTest

/// The report page's layout, measured in headless Chromium.
final class ReportColumnsTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()
    let samples = CommandLineTests.packageRoot.appendingPathComponent("samples").path

    /// At 1400 px (and narrower and wider), no table of the summary runs out of its box into the
    /// next column: the first-frame table stays clear of the stage times. Measured in headless
    /// Chromium, by a script added to a copy of the page that writes the boxes into the DOM.
    func testTheReportsTablesStayInTheirColumns() throws {
        guard FileManager.default.isExecutableFile(atPath: ReportBrowserTests.chromium) else {
            throw XCTSkip("chromium is not installed")
        }
        let board = folder.file("report.json")
        try Data("""
        {"canvas": {"width": 90, "height": 160, "fps": 10}, "duration": 3,
         "stories": [{"id": "beach", "items": [{"uri": "\(samples)/beach.mp4", "duration": 1}]},
                     {"id": "city", "items": [{"uri": "\(samples)/city.mp4", "duration": 1}]},
                     {"id": "sunset", "items": [{"uri": "\(samples)/sunset.jpg"}]}]}
        """.utf8).write(to: URL(fileURLWithPath: board))
        let out = folder.file("report")
        let result = try cli.run(["render", board, "--output", out, "--report", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let probe = #"""
        <script>
        window.addEventListener('load', () => setTimeout(() => {
          const boxes = [...document.querySelectorAll('#summary > div')].map(d => {
            const r = d.getBoundingClientRect();
            const widest = Math.max(0, ...[...d.querySelectorAll('table')].map(t => t.getBoundingClientRect().right));
            return { title: d.querySelector('h3').textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom, tableRight: widest };
          });
          const pre = Object.assign(document.createElement('pre'), { id: 'probe', textContent: JSON.stringify(boxes) });
          document.body.append(pre);
        }, 300));
        </script>
        """#
        let page = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        try (page + probe).write(toFile: out + "/probe.html", atomically: true, encoding: .utf8)
        for width in [1400, 1280, 1000] {
            let boxes = try measure(out + "/probe.html", width: width)
            XCTAssertTrue(boxes.contains { $0.title.hasPrefix("First frame") }, "\(boxes)")
            for box in boxes {
                XCTAssertLessThanOrEqual(box.tableRight, box.right + 0.5, "\(width) px: \(box.title)'s table leaves its box")
                for other in boxes where other.title != box.title {
                    let apart = box.right <= other.left + 0.5 || other.right <= box.left + 0.5
                        || box.bottom <= other.top + 0.5 || other.bottom <= box.top + 0.5
                    XCTAssertTrue(apart, "\(width) px: \(box.title) overlaps \(other.title)")
                }
            }
        }
    }

    struct SummaryBox: Decodable {
        var title: String
        var left, right, top, bottom, tableRight: Double
    }

    /// The summary's boxes as Chromium lays the page out at `width` pixels.
    func measure(_ page: String, width: Int) throws -> [SummaryBox] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ReportBrowserTests.chromium)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--window-size=\(width),900",
                             "--user-data-dir=" + folder.file("chromium-\(width)"),
                             "--virtual-time-budget=3000", "--dump-dom", "file://" + page]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let dom = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let start = try XCTUnwrap(dom.range(of: #"<pre id="probe">"#), "no probe in the page: \(dom.suffix(500))")
        let end = try XCTUnwrap(dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex))
        let text = String(dom[start.upperBound..<end.lowerBound])
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        return try JSONDecoder().decode([SummaryBox].self, from: Data(text.utf8))
    }
}
