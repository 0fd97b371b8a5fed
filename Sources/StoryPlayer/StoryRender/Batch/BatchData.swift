import Foundation
import StoryModel

/// The rows of a batch's data (`render-stories batch --data`): one variant of the storyboard
/// each, its values by parameter name, read from CSV (a header of column names, RFC 4180
/// quoting), a JSON array of objects, or JSON lines (an object a line).
///
/// Pure, so the CSV reader and the errors are tested without a render.
public struct BatchData: Sendable, Equatable {
    /// A row: where it is in the data (1 for the first row after a CSV's header, the first
    /// object, the first line), and its values as text, as `--set` gives them.
    public struct Row: Sendable, Equatable {
        public var number: Int
        public var values: [String: String]

        /// How errors name it: "row 3".
        public var label: String { "row \(number)" }
    }

    public var rows: [Row]
    /// Every column (CSV) or key (JSON) any row has, in the order first seen.
    public var columns: [String]
    /// The rows that could not be read (a CSV row with too few or too many values, a JSON line
    /// that does not parse, an item that is not an object), each naming its row: left out of
    /// `rows`, so that one bad row hides none of the other rows' mistakes (`BatchPlan` reports
    /// them all together).
    public var problems: [Problem] = []

    /// Why data cannot be used: its file and what is wrong, with the row or line.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// The most rows one batch reads.
    public static let rowLimit = 100_000

    /// Reads `path` by its extension: `.csv`, `.json` or `.jsonl` (also `.ndjson`).
    public init(contentsOf path: String) throws(Problem) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(message: "cannot read \(path): \(Storyboard.whyUnreadable(path))")
        }
        let text = String(decoding: data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data, as: UTF8.self)
        let name = (path as NSString).lastPathComponent
        switch (path as NSString).pathExtension.lowercased() {
        case "csv": try self.init(csv: text, name: name)
        case "json": try self.init(json: text, name: name)
        case "jsonl", "ndjson": try self.init(jsonLines: text, name: name)
        default: throw Problem(message: "\(path): give the rows as .csv, .json (an array of objects) or .jsonl (an object a line)")
        }
    }

    // MARK: - CSV

    public init(csv text: String, name: String = "data.csv") throws(Problem) {
        let records = BatchData.csvRecords(text)
        guard let header = records.first, !header.allSatisfy(\.isEmpty) else {
            throw Problem(message: "\(name): no header row (the parameters' names, comma-separated)")
        }
        let columns = header.map { $0.trimmingCharacters(in: .whitespaces) }
        if let empty = columns.firstIndex(of: "") {
            throw Problem(message: "\(name): column \(empty + 1) of the header has no name")
        }
        if let twice = columns.first(where: { column in columns.filter { $0 == column }.count > 1 }) {
            throw Problem(message: "\(name): column \(twice) is named twice in the header")
        }
        var rows: [Row] = []
        var problems: [Problem] = []
        for (index, record) in records.dropFirst().enumerated() {
            // A blank line (a file's trailing newline, a gap) is no row.
            if record.count == 1, record[0].isEmpty { continue }
            let number = index + 1
            guard rows.count + problems.count < BatchData.rowLimit else { throw Problem(message: "\(name): more than \(BatchData.rowLimit) rows") }
            guard record.count == columns.count else {
                problems.append(Problem(message: "\(name), row \(number): \(record.count) values for \(columns.count) columns (\(columns.joined(separator: ", ")))"))
                continue
            }
            rows.append(Row(number: number, values: Dictionary(uniqueKeysWithValues: zip(columns, record))))
        }
        self.rows = rows
        self.columns = columns
        self.problems = problems
    }

    /// The records of CSV text (RFC 4180): fields apart by commas, records by CRLF or LF; a field
    /// in double quotes may hold commas, line breaks and doubled quotes.
    static func csvRecords(_ text: String) -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var quoted = false
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            if quoted {
                if character == "\"" {
                    if characters.first == "\"" {
                        field.append("\"")
                        characters.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"" where field.isEmpty: quoted = true
            case ",":
                record.append(field)
                field = ""
            case "\n", "\r\n", "\r":
                record.append(field)
                records.append(record)
                record = []
                field = ""
            default: field.append(character)
            }
        }
        if !field.isEmpty || !record.isEmpty {
            record.append(field)
            records.append(record)
        }
        return records
    }

    // MARK: - JSON

    public init(json text: String, name: String = "data.json") throws(Problem) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(Data(text.utf8))
        } catch {
            throw Problem(message: "\(name): \(error.message)")
        }
        guard case .array(let items) = value else { throw Problem(message: "\(name): expected an array of objects, one a row") }
        var rows: [Row] = []
        var columns: [String] = []
        var problems: [Problem] = []
        for (index, item) in items.prefix(BatchData.rowLimit).enumerated() {
            do {
                rows.append(try BatchData.row(item, number: index + 1, where: "\(name), row \(index + 1)", columns: &columns))
            } catch {
                problems.append(error)
            }
        }
        self.rows = rows
        self.columns = columns
        self.problems = problems
    }

    public init(jsonLines text: String, name: String = "data.jsonl") throws(Problem) {
        var rows: [Row] = []
        var columns: [String] = []
        var problems: [Problem] = []
        // Rows are numbered by the objects, a line that cannot be read counting as one, so a
        // row's number does not change when the line before it is mended.
        var number = 0
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard !line.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { continue }
            number += 1
            guard number <= BatchData.rowLimit else { throw Problem(message: "\(name): more than \(BatchData.rowLimit) rows") }
            do throws(Problem) {
                let value: JSONValue
                do {
                    value = try JSONValue.parse(Data(line.utf8))
                } catch {
                    throw Problem(message: "\(name), line \(index + 1) (row \(number)): \(error.message)")
                }
                rows.append(try BatchData.row(value, number: number, where: "\(name), line \(index + 1)", columns: &columns))
            } catch {
                problems.append(error)
            }
        }
        self.rows = rows
        self.columns = columns
        self.problems = problems
    }

    /// One object of JSON data as a row: strings as they are, numbers and bools as JSON writes
    /// them, so each is read by its parameter's type as `--set` text is.
    private static func row(_ value: JSONValue, number: Int, where place: String, columns: inout [String]) throws(Problem) -> Row {
        guard case .object(let fields) = value else { throw Problem(message: "\(place): expected an object of parameter values") }
        var values: [String: String] = [:]
        for key in fields.keys.sorted() {
            switch fields[key]! {
            case .string(let text): values[key] = text
            case .number(let number): values[key] = JSONText.number(number)
            case .bool(let bool): values[key] = bool ? "true" : "false"
            case .null: continue
            default: throw Problem(message: "\(place): \(key) is an array or an object; a parameter's value is a string, a number or a bool")
            }
            if !columns.contains(key) { columns.append(key) }
        }
        return Row(number: number, values: values)
    }
}
