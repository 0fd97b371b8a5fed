import Foundation
import StoryBase
import StoryModel

/// `compare.html`: the two renders and their difference side by side with a scrubber, the SSIM
/// of every pair as a curve with the worst frames marked, the alignment (inserted and deleted
/// frames), and the traces' differences on a lane a story.
///
/// Made like `report.html`: static HTML with inline CSS and JavaScript and no network use, the
/// data in one `<script type="application/json">` block, pictures by relative paths (a
/// folder's frames where they are, the difference pictures and a clip's frames beside the page).
struct ComparisonPage {
    static let fileName = "compare.html"
    static let dataElementID = "compare-data"

    let report: ComparisonReport
    /// The folder the page is written in.
    let folder: String

    /// The page's data: the report, and where each side's pictures are.
    var dataJSON: String {
        let written = report.page?.pictures
        func side(_ path: String, _ kind: ComparedRender.Kind?, written frames: [Int]?, letter: String) -> String {
            if kind == .frames {
                return "{\"kind\": \"frames\", \"prefix\": \(JSONText.string(Self.relativePath(from: folder, to: path) + "/frame-"))}"
            }
            let numbers = (frames ?? []).sorted().map(String.init).joined(separator: ",")
            return "{\"kind\": \"clip\", \"prefix\": \(JSONText.string("frames/\(letter)-")), \"written\": [\(numbers)]}"
        }
        let differences = (written?.differences ?? []).sorted().map(JSONText.string).joined(separator: ",")
        return """
        {"version": 1,
        "a": \(side(report.a, report.page?.kindA, written: written?.framesA, letter: "a")),
        "b": \(side(report.b, report.page?.kindB, written: written?.framesB, letter: "b")),
        "differences": [\(differences)],
        "report": \(report.json)}
        """
    }

    var html: String {
        Self.head + "<script type=\"application/json\" id=\"\(Self.dataElementID)\">\n" + ReportPage.scriptSafe(dataJSON)
            + "\n</script>\n<script>\n" + Self.script + "</script>\n</body>\n</html>\n"
    }

    /// Writes `compare.html` into `folder`, whole or not at all.
    func write() throws(CompareError) {
        let path = (folder as NSString).appendingPathComponent(Self.fileName)
        do {
            try AtomicFile.write(Array(html.utf8), to: path)
        } catch {
            throw CompareError(.output, "cannot write \(path)", cause: error)
        }
    }

    /// `target` as a path from `base` (both as the system resolves them), for a link.
    static func relativePath(from base: String, to target: String) -> String {
        func parts(_ path: String) -> [String] {
            URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().pathComponents.filter { $0 != "/" }
        }
        let from = parts(base), to = parts(target)
        var shared = 0
        while shared < min(from.count, to.count) && from[shared] == to[shared] { shared += 1 }
        let path = Array(repeating: "..", count: from.count - shared) + to.dropFirst(shared)
        return path.isEmpty ? "." : path.map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? $0 }
            .joined(separator: "/")
    }
}
