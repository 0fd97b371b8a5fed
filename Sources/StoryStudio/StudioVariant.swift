import Foundation
import StoryPlayer
import Synchronization

/// The variant the studio shows and its Render button renders (issue 55 item 4): the values of
/// the storyboard's parameters, from `--set`, a row of `--data`, or the page's form. The frames,
/// the lanes and the render all read `values`, so the preview is the variant the button makes,
/// which is what `batch` and `render --set` make of the same values.
final class StudioVariant: Sendable {
    /// A row of `--data`, as the page's row selector lists it.
    struct Row: Sendable, Encodable, Equatable {
        let number: Int
        /// Its `--name-from` column's value, else "row N".
        let name: String
        let values: [String: String]
    }

    private struct Choice: Sendable {
        var values: [String: String]
        var row: Int?
    }

    let boardPath: String
    /// `--set`: the values shown first, and under every row's.
    let common: [String: String]
    let rows: [Row]
    private let choice: Mutex<Choice>
    /// One choice at a time: a check and its taking are one step, so of two choices sent at
    /// once the one taken last is the one shown.
    private let choosing = Mutex(())

    init(boardPath: String, common: [String: String], rows: [Row] = []) {
        self.boardPath = boardPath
        self.common = common
        self.rows = rows
        choice = Mutex(Choice(values: common, row: nil))
        // Started with data, the studio shows its first row, as `batch` renders it first (a
        // first row the storyboard refuses leaves `--set`'s values, and the page's selector on
        // "the form", where choosing the row again says why).
        if let first = rows.first { try? choose(row: first.number) }
    }

    /// The rows of `data`, each named by its `nameFrom` column (else "row N").
    static func rows(of data: BatchData, nameFrom column: String?) -> [Row] {
        data.rows.map { row in
            Row(number: row.number, name: column.flatMap { row.values[$0] } ?? row.label, values: row.values)
        }
    }

    var values: [String: String] { choice.withLock { $0.values } }
    var row: Int? { choice.withLock { $0.row } }

    /// The parameters the storyboard declares now (it may have been edited since the studio
    /// started); empty when it declares none or cannot be read (its errors show as the board's).
    func declared() -> [StoryParameter] {
        guard let json = FileManager.default.contents(atPath: boardPath) else { return [] }
        return (try? Storyboard.parameters(json: json, folder: (boardPath as NSString).deletingLastPathComponent)) ?? []
    }

    /// Shows the values the form gives (names the storyboard does not declare are refused, as
    /// `--set` refuses them). Throws the storyboard's errors with these values, each with its
    /// JSON path and the parameter, and keeps the variant shown before.
    func choose(values: [String: String]) throws(StudioLoadFailure) {
        try choosing.withLock { _ throws(StudioLoadFailure) in
            try check(values)
            choice.withLock { $0 = Choice(values: values, row: nil) }
        }
    }

    /// Shows row `number` of the data: `--set`'s values with the row's over them, as `batch`
    /// renders that row (a column that names no parameter is not a value).
    func choose(row number: Int) throws(StudioLoadFailure) {
        guard let row = rows.first(where: { $0.number == number }) else {
            throw StudioLoadFailure(problems: [StudioProblem(.storyboard, path: "row", "the data has no row \(number)")])
        }
        let names = Set(declared().map(\.name))
        var values = common
        for (key, value) in row.values where names.contains(key) { values[key] = value }
        try choosing.withLock { _ throws(StudioLoadFailure) in
            try check(values, row: "row \(number)")
            choice.withLock { $0 = Choice(values: values, row: number) }
        }
    }

    private func check(_ values: [String: String], row: String? = nil) throws(StudioLoadFailure) {
        do {
            _ = try Storyboard(contentsOf: boardPath, parameters: values, row: row)
        } catch {
            throw StudioLoadFailure(problems: StudioProblem.all(error))
        }
    }
}

// MARK: - What the page's form is built from

extension StudioVariant {
    /// `GET /api/parameters`: each declaration as the form needs it, the values shown, the rows
    /// and the files a `file` parameter may name.
    struct Form: Encodable {
        struct Parameter: Encodable {
            let name: String
            let type: String
            let `default`: String?
            let `enum`: [String]?
            let min: Double?
            let max: Double?
        }

        let parameters: [Parameter]
        let values: [String: String]
        let row: Int?
        let rows: [Row]
        /// Files under the storyboard's folder, relative to it: a `file` parameter names one.
        let files: [String]
    }

    func form(excluding output: String) -> Form {
        let parameters = declared().map { declared in
            Form.Parameter(name: declared.name, type: declared.kind.rawValue, default: declared.defaultValue?.description,
                           enum: declared.allowed?.map(\.description), min: declared.minimum, max: declared.maximum)
        }
        let current = choice.withLock { $0 }
        let needsFiles = parameters.contains { $0.type == "file" }
        return Form(parameters: parameters, values: current.values, row: current.row, rows: rows,
                    files: needsFiles ? StudioVariant.files(under: (boardPath as NSString).deletingLastPathComponent, excluding: output) : [])
    }

    /// Regular files under `folder` (not hidden ones, not the render's output), relative to it,
    /// sorted; at most `limit`, at most four folders deep: a picker, not an index of the disk.
    static func files(under folder: String, excluding output: String, limit: Int = 500) -> [String] {
        // Gathered (up to ten times the limit) before sorting, so the names kept are the first
        // in order, not in the walk's.
        let root = URL(fileURLWithPath: folder).standardizedFileURL
        let skipped = URL(fileURLWithPath: output).standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey],
                                                          options: [.skipsHiddenFiles, .skipsPackageDescendants]) else { return [] }
        var found: [String] = []
        for case let url as URL in walker {
            let path = url.standardizedFileURL.path
            if path == skipped || walker.level > 4 {
                walker.skipDescendants()
                continue
            }
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            found.append(String(path.dropFirst(root.path.count + 1)))
            if found.count == limit * 10 { break }
        }
        return Array(found.sorted().prefix(limit))
    }
}
