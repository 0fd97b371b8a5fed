import Compositor
import Foundation
import StoryBase
import StoryModel
import StoryTrace

/// What a batch will render: each row of its data as a variant of the storyboard, in a folder of
/// its own under the batch's output (named by a column, `--name-from`, else by its number), and
/// what is known before any frame: every row's storyboard read with its values, so a missing,
/// unknown or mistyped value stops the batch with every such error, each naming its row.
public struct BatchPlan: Sendable {
    public struct Variant: Sendable, Equatable {
        public var row: BatchData.Row
        /// The folder's name under the batch's output.
        public var name: String
        public var folder: String
    }

    public var variants: [Variant]

    /// Plans `data` for the storyboard at `board` into `output`. Throws a storyboard error
    /// listing every row's problems (`row N` in each; the rows the data could not give among
    /// them), or a usage problem.
    /// `checking`: the rows read with their values (a part of a batch checks its own; the
    /// machine that split it checked them all); every row by default.
    /// `verifying`: also what would fail a row's render before its first frame (`batch
    /// --check`): a local file it names that is not there (a `file` parameter's among them), a
    /// captions file that cannot be read, a drag never released.
    public init(board: String, data: BatchData, output: String, nameFrom column: String?,
                common: [String: String] = [:], checking: ClosedRange<Int>? = nil, verifying: Bool = false) throws(StoryboardError) {
        var problems = data.problems.map { StoryboardError(path: "", message: $0.message) }
        guard !data.rows.isEmpty else {
            throw BatchPlan.together(problems.isEmpty ? [StoryboardError(path: "", message: "the data has no rows")] : problems)
        }
        if let column, !data.columns.contains(column) {
            throw StoryboardError(path: "", message: "--name-from \(column): the data has no such column (it has \(data.columns.joined(separator: ", ")))")
        }
        var variants: [Variant] = []
        var seen: [String: Int] = [:]
        let declared = (try? Storyboard.parameters(json: FileManager.default.contents(atPath: board) ?? Data(),
                                                   folder: URL(fileURLWithPath: board).deletingLastPathComponent().path)) ?? []
        let parameterNames = Set(declared.map(\.name))
        for row in data.rows {
            // A column that names no parameter (the name column, notes) is not a value to set.
            var values = common
            for (key, value) in row.values where parameterNames.contains(key) { values[key] = value }
            if checking?.contains(row.number) ?? true {
                do {
                    let variant = try Storyboard(contentsOf: board, parameters: values, row: row.label)
                    if verifying { problems += BatchPlan.renderProblems(of: variant, row: row) }
                } catch {
                    problems += error.all
                }
            }
            let raw = column.flatMap { row.values[$0] } ?? String(format: "%04d", row.number)
            let name = BatchPlan.folderName(raw)
            if let first = seen[name] {
                problems.append(StoryboardError(path: "", message: "\(row.label): its folder \(name) is row \(first)'s too: give --name-from a column whose values differ"))
            }
            seen[name] = row.number
            var kept = row
            kept.values = values
            variants.append(Variant(row: kept, name: name, folder: (output as NSString).appendingPathComponent(name)))
        }
        if !problems.isEmpty { throw BatchPlan.together(problems) }
        self.variants = variants
    }

    /// Every problem as one storyboard error, as many as one reports.
    private static func together(_ problems: [StoryboardError]) -> StoryboardError {
        var first = problems[0]
        first.also = Array(problems.dropFirst().prefix(StoryboardError.reportLimit - 1))
        first.unreported = max(0, problems.count - StoryboardError.reportLimit)
        return first
    }

    /// What stops or fails a row's render before its first frame, though its storyboard reads:
    /// each named with its JSON path and its row, as a storyboard error is.
    private static func renderProblems(of variant: Storyboard, row: BatchData.Row) -> [StoryboardError] {
        var problems = variant.missingLocalFiles.map { StoryboardError(path: $0.path, message: "no such file \($0.file) (\(row.label))") }
        for check in [variant.checkCaptions, variant.checkFingersLift] as [() throws(StoryboardError) -> Void] {
            do {
                try check()
            } catch {
                problems += error.all.map { StoryboardError(path: $0.path, message: "\($0.message) (\(row.label))") }
            }
        }
        return problems
    }

    /// A folder name from a row's value: letters, digits, `.`, `_` and `-` kept, anything else
    /// `_`, never empty, `.` or `..`, at most 100 characters.
    static func folderName(_ raw: String) -> String {
        let kept = raw.unicodeScalars.map { scalar -> Character in
            CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII || "._-".unicodeScalars.contains(scalar) ? Character(scalar) : "_"
        }
        let name = String(kept.prefix(100))
        return name.isEmpty || name == "." || name == ".." ? "_" + name : name
    }
}

// MARK: - A row done

/// What a finished row left in its folder (`batch-row.json`): its values and the render's
/// arguments, so a batch run again knows the row is complete and the same, and passes it over.
public struct BatchRowRecord: Sendable, Equatable, Codable {
    public var values: [String: String]
    public var arguments: [String]
    public var outputs: [String]

    public static let fileName = "batch-row.json"

    public init(values: [String: String], arguments: [String], outputs: [String]) {
        self.values = values
        self.arguments = arguments
        self.outputs = outputs
    }

    /// Whether `folder` holds a finished render of this same row: its record equal to this one,
    /// and every output it lists there.
    public func isComplete(in folder: String) -> Bool {
        let path = (folder as NSString).appendingPathComponent(BatchRowRecord.fileName)
        guard let data = FileManager.default.contents(atPath: path),
              let previous = try? JSONDecoder().decode(BatchRowRecord.self, from: data), previous == self else { return false }
        return outputs.allSatisfy { FileManager.default.fileExists(atPath: $0) }
    }

    /// Writes the record into `folder`, whole or not at all.
    public func write(in folder: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try AtomicFile.write(Array(try encoder.encode(self)), to: (folder as NSString).appendingPathComponent(BatchRowRecord.fileName))
    }
}

// MARK: - batch.json

/// `batch.json`: each row's status (`done`, `failed`, `skipped` when a run before left it
/// complete, `interrupted`, `not-run`), outputs, seconds and error, and the counts.
public struct BatchReport: Sendable, Codable, Equatable {
    public struct RowResult: Sendable, Codable, Equatable {
        public var row: Int
        public var name: String
        public var status: BatchRowStatus
        public var outputs: [String]
        /// Seconds its render took.
        public var time: Double
        /// Why it failed; null otherwise.
        public var error: String?
        public var values: [String: String]

        public init(row: Int, name: String, status: BatchRowStatus, outputs: [String], time: Double, error: String?, values: [String: String]) {
            self.row = row
            self.name = name
            self.status = status
            self.outputs = outputs
            self.time = time
            self.error = error
            self.values = values
        }

        enum CodingKeys: String, CodingKey { case row, name, status, outputs, time, error, values }

        /// `error` is written as null when there is none, so every row has the same keys.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(row, forKey: .row)
            try container.encode(name, forKey: .name)
            try container.encode(status, forKey: .status)
            try container.encode(outputs, forKey: .outputs)
            try container.encode(time, forKey: .time)
            try container.encode(error, forKey: .error)
            try container.encode(values, forKey: .values)
        }
    }

    public var storyboard: String
    public var data: String
    public var rows: [RowResult]
    public var done: Int
    public var failed: Int
    public var skipped: Int
    public var interrupted: Bool
    /// Seconds the whole batch took.
    public var time: Double
    public var jobs: Int

    public init(storyboard: String, data: String, rows: [RowResult], interrupted: Bool, seconds: Double, jobs: Int) {
        self.storyboard = storyboard
        self.data = data
        self.rows = rows.sorted { $0.row < $1.row }
        done = rows.filter { $0.status == .done }.count
        failed = rows.filter { $0.status == .failed }.count
        skipped = rows.filter { $0.status == .skipped }.count
        self.interrupted = interrupted
        time = seconds
        self.jobs = jobs
    }

    /// Writes `batch.json` (or a part's report, `batch-rows-A-B.json`) into `folder`, whole or
    /// not at all.
    public func write(in folder: String, named name: String = "batch.json") throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try AtomicFile.write(Array(try encoder.encode(self)), to: (folder as NSString).appendingPathComponent(name))
    }

    /// The reports of a batch's parts (`batch-rows-*.json` in `folder`, each from `batch --rows`)
    /// as one report of every row `plan` has: a row no part reported is `not-run`; a row two
    /// parts reported (a part run again) keeps the newest file's result; a part's row whose
    /// name or values are not the plan's (a part left from other data) is not taken. `time` is
    /// the longest part's, `jobs` the parts' sum: the parts ran side by side.
    public static func merging(partsIn folder: String, plan: BatchPlan, storyboard: String, data: String) throws(BatchData.Problem) -> BatchReport {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix("batch-rows-") && $0.hasSuffix(".json") }
        guard !names.isEmpty else {
            throw BatchData.Problem(message: "\(folder) has no parts' reports (batch-rows-*.json) to merge")
        }
        let dated = names.map { name -> (String, Date) in
            let path = (folder as NSString).appendingPathComponent(name)
            return (path, (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast)
        }.sorted { $0.1 < $1.1 }
        var byRow: [Int: RowResult] = [:]
        var time = 0.0
        var jobs = 0
        var interrupted = false
        let planned = Dictionary(uniqueKeysWithValues: plan.variants.map { ($0.row.number, $0) })
        for (path, _) in dated {
            guard let bytes = FileManager.default.contents(atPath: path),
                  let part = try? JSONDecoder().decode(BatchReport.self, from: bytes) else {
                throw BatchData.Problem(message: "\(path) is not a part's report that batch --rows wrote")
            }
            for row in part.rows {
                guard let variant = planned[row.row], variant.name == row.name, variant.row.values == row.values else { continue }
                byRow[row.row] = row
            }
            time = max(time, part.time)
            jobs += part.jobs
            interrupted = interrupted || part.interrupted
        }
        let rows = plan.variants.map { variant in
            byRow[variant.row.number] ?? RowResult(row: variant.row.number, name: variant.name, status: .notRun, outputs: [],
                                                   time: 0, error: nil, values: variant.row.values)
        }
        return BatchReport(storyboard: storyboard, data: data, rows: rows, interrupted: interrupted, seconds: time, jobs: jobs)
    }
}

// MARK: - A row's outcome

/// Whether a row's render, finished without an error of its own, counts as failed: a story that
/// could not be shown (its error card drawn in the frames) fails its row, as `--strict` would
/// fail the render.
public enum BatchRowOutcome {
    /// The stories `folder`'s `summary.json` lists as failed, each with the first error its trace
    /// gave; nil when none failed (or the summary cannot be read, which the caller sees otherwise).
    public static func failure(in folder: String) -> String? {
        guard let data = FileManager.default.contents(atPath: (folder as NSString).appendingPathComponent("summary.json")),
              let summary = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let failed = summary["failed_stories"] as? [String], !failed.isEmpty else { return nil }
        let trace = (try? String(contentsOfFile: (folder as NSString).appendingPathComponent("lifecycle.jsonl"), encoding: .utf8)) ?? ""
        let events = trace.split(separator: "\n").compactMap { try? TraceEvent(jsonLine: $0) }
        return failed.map { story in
            let error = events.first { $0.event == .failed && $0.story == story }?.error
            return "story \(story) failed" + (error.map { ": \($0)" } ?? "")
        }.joined(separator: "; ")
    }
}
