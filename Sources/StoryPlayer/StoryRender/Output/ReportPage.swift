import Compositor
import Foundation
import StoryBase
import StoryModel
import StoryTrace

/// `report.html`: one self-contained page to look at a render with — the frames in a player, the
/// lifecycle as lanes beside them, and the summary.
///
/// The page is static HTML with inline CSS and JavaScript and no network use, so it opens from
/// `file://` as well as from any static server. It references the frames (`frame-NNNNNN.png`)
/// and the MP4 by relative paths, and carries everything else — the trace, the summary, the
/// check's result — as one JSON document in a `<script type="application/json">` block.
public struct ReportPage: Sendable {
    public static let fileName = "report.html"
    /// The id of the `<script>` element that holds the data.
    public static let dataElementID = "report-data"

    /// The text of `lifecycle.jsonl`.
    public var trace: String
    /// The text of `summary.json`, or nil when there is none.
    public var summary: String?
    /// Timeline frames per second: frame n shows n / fps.
    public var fps: Double
    /// The frame numbers on disk, lowest and highest, or nil when no PNG was written.
    public var frames: ClosedRange<Int>?
    /// The MP4, relative to the page (a URL path), when one was written.
    public var clip: String?
    /// The most players that may be alive at once (the check's bound and the line on the count).
    public var maxAlive: Int
    /// The most audio-only players (a room's participants) that may be alive at once, if bounded
    /// (`check --max-audio`).
    public var maxAudio: Int?
    /// Messages about the report itself (an fps assumed, trace lines skipped).
    public var notices: [String]

    public init(trace: String, summary: String?, fps: Double, frames: ClosedRange<Int>?, clip: String? = nil,
                maxAlive: Int = 2, maxAudio: Int? = nil, notices: [String] = []) {
        self.trace = trace
        self.summary = summary
        self.fps = fps
        self.frames = frames
        self.clip = clip
        self.maxAlive = maxAlive
        self.maxAudio = maxAudio
        self.notices = notices
    }

    /// The trace lines the page draws, as JSON object texts, and why the others were left out.
    ///
    /// A line `TraceEvent(jsonLine:)` reads is kept as written (every field, in its order). A
    /// JSON object whose only fault is an event kind this version does not know (`speaker`,
    /// `gesture`, …) is kept too: the page draws any kind, and a trace from a newer renderer
    /// should still be viewable. Anything else cannot be placed on a lane and is left out.
    func drawableEvents() -> (events: [String], skipped: [String]) {
        var events: [String] = [], skipped: [String] = []
        var number = 0
        for line in trace.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let text = line.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            do {
                _ = try TraceEvent(jsonLine: text)
                events.append(text)
            } catch where error.code == .unknownEvent && ReportPage.isFutureEvent(text) {
                events.append(text)
            } catch {
                skipped.append("trace line \(number) left out: \(error.message)")
            }
        }
        return (events, skipped)
    }

    /// An object with a string `event` and, if it has them, a finite `t` of 0 or more.
    static func isFutureEvent(_ text: String) -> Bool {
        guard case .object(let fields)? = try? JSONValue.parse(Data(text.utf8)),
              case .string? = fields["event"] else { return false }
        switch fields["t"] {
        case nil: return true
        case .number(let t)?: return t.isFinite && t >= 0
        default: return false
        }
    }

    /// The page's data as one JSON document (before escaping for the script element).
    public var dataJSON: String {
        let (events, skipped) = drawableEvents()
        let violations = TraceCheck.check(trace, maxAlive: maxAlive, maxAudio: maxAudio)
        // summary.json is ours, but the folder is user input: embed it only if it parses.
        var summaryText = "null"
        var pageNotices = notices + skipped
        if let summary {
            if case .object? = try? JSONValue.parse(Data(summary.utf8)) {
                summaryText = summary.trimmingCharacters(in: .whitespacesAndNewlines)
            } else {
                pageNotices.append("summary.json is not a JSON object; the summary is left out")
            }
        }
        let strings = { (values: [String]) in "[" + values.map(JSONText.string).joined(separator: ", ") + "]" }
        return """
        {"version": 1, "fps": \(JSONText.number(fps)), \
        "first_frame": \(frames.map { String($0.lowerBound) } ?? "null"), \
        "last_frame": \(frames.map { String($0.upperBound) } ?? "null"), \
        "clip": \(clip.map(JSONText.string) ?? "null"), "max_alive": \(maxAlive), \
        "max_audio": \(maxAudio.map(String.init) ?? "null"),
        "check": {"ok": \(violations.isEmpty), "violations": \(strings(violations.map(\.description)))},
        "notices": \(strings(pageNotices)),
        "summary": \(summaryText),
        "events": [
        \(events.joined(separator: ",\n"))
        ]}
        """
    }

    /// Makes JSON safe inside a `<script>` element: HTML ends script data at the first `</`
    /// (`</script>`) and treats `<!--` specially, whatever JSON's quotes say, so a story id such
    /// as `</script><script>…` would end the block and run as code. `\u003c` is the same
    /// character to `JSON.parse`, and `<` can only occur inside JSON strings.
    public static func scriptSafe(_ json: String) -> String {
        json.replacingOccurrences(of: "<", with: "\\u003c")
    }

    /// The whole page.
    public var html: String {
        ReportPage.head + "<script type=\"application/json\" id=\"\(ReportPage.dataElementID)\">\n"
            + ReportPage.scriptSafe(dataJSON) + "\n</script>\n<script>\n" + ReportPage.script + "</script>\n</body>\n</html>\n"
    }

    /// Writes `report.html` into `folder`, whole or not at all.
    public func write(toFolder folder: String) throws(CompositorError) -> String {
        let path = (folder as NSString).appendingPathComponent(ReportPage.fileName)
        do throws(FileError) { try AtomicFile.write(Array(html.utf8), to: path) } catch { throw CompositorError(error) }
        return path
    }
}
