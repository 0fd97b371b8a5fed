import Compositor
import Foundation

/// Reads one JSON object, remembering which keys were used so the rest can be reported.
///
/// A value of the wrong type or out of range is noted in `problems` and read as absent, so
/// the caller goes on with its default and the user hears of every mistake in one run.
package struct ObjectReader {
    let prefix: String
    let problems: StoryboardProblems
    private let fields: [String: JSONValue]
    private var used: Set<String> = []
    /// Keys that were present but unusable, with their error: a required one is then reported
    /// by what is wrong with it, not as missing.
    private var invalid: [String: StoryboardError] = [:]

    package init(_ value: JSONValue, path: String, problems: StoryboardProblems) throws(StoryboardError) {
        guard case .object(let fields) = value else {
            throw StoryboardError(path: path, message: "expected an object, got \(value.kind)")
        }
        self.prefix = path
        self.fields = fields
        self.problems = problems
    }

    func path(_ key: String) -> String {
        prefix.isEmpty ? key : "\(prefix).\(key)"
    }

    private mutating func take(_ key: String) -> JSONValue? {
        used.insert(key)
        return fields[key]
    }

    /// Notes that `key` holds an unusable value; the read gives nil.
    private mutating func reject<T>(_ key: String, _ message: String) -> T? {
        let error = StoryboardError(path: path(key), message: message)
        invalid[key] = error
        problems.record(error)
        return nil
    }

    /// The value of `key` whatever it is (its caller checks it), marked read; nil when absent.
    mutating func raw(_ key: String) -> JSONValue? {
        take(key)
    }

    mutating func object(_ key: String) -> ObjectReader? {
        guard let value = take(key) else { return nil }
        guard case .object = value else { return reject(key, "expected an object, got \(value.kind)") }
        return try? ObjectReader(value, path: path(key), problems: problems)
    }

    package mutating func array(_ key: String) -> [JSONValue]? {
        guard let value = take(key) else { return nil }
        guard case .array(let items) = value else { return mismatch(key, "an array", value) }
        return items
    }

    mutating func string(_ key: String) -> String? {
        guard let value = take(key) else { return nil }
        guard case .string(let text) = value else { return mismatch(key, "a string", value) }
        // A C string ends at the first NUL: "a.jpg\u0000.mp4" would open a.jpg without a word.
        guard !text.unicodeScalars.contains("\0") else { return reject(key, "contains a NUL character (\\u0000)") }
        return text
    }

    /// A string that may also be JSON null (nil either way).
    package mutating func nullableString(_ key: String) -> String? {
        if case .null? = fields[key] {
            used.insert(key)
            return nil
        }
        return string(key)
    }

    /// A CSS colour (`RGBAColor(parsing:)`).
    mutating func colour(_ key: String) -> RGBAColor? {
        guard let text = string(key) else { return nil }
        guard let colour = RGBAColor(parsing: text) else {
            return reject(key, "expected a colour (\(RGBAColor.spokenForms)), got \"\(text)\"")
        }
        return colour
    }

    mutating func bool(_ key: String) -> Bool? {
        guard let value = take(key) else { return nil }
        guard case .bool(let flag) = value else { return mismatch(key, "a boolean", value) }
        return flag
    }

    mutating func number(_ key: String, in range: ClosedRange<Double>) -> Double? {
        guard let value = take(key) else { return nil }
        guard case .number(let number) = value, number.isFinite else { return mismatch(key, "a number", value) }
        guard range.contains(number) else {
            return reject(key, "\(Self.format(number)) is out of range (\(Self.format(range.lowerBound)) to \(Self.format(range.upperBound)))")
        }
        return number
    }

    mutating func integer(_ key: String, in range: ClosedRange<Int>) -> Int? {
        guard let value = take(key) else { return nil }
        guard case .number(let number) = value, number.isFinite, number == number.rounded() else {
            return mismatch(key, "an integer", value)
        }
        guard number >= Double(range.lowerBound) && number <= Double(range.upperBound) else {
            return reject(key, "\(Self.format(number)) is out of range (\(range.lowerBound) to \(range.upperBound))")
        }
        return Int(number)
    }

    mutating func choice<T: RawRepresentable & CaseIterable>(_ key: String, of type: T.Type) -> T?
    where T.RawValue == String {
        guard let text = string(key) else { return nil }
        guard let value = T(rawValue: text) else {
            let options = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            return reject(key, "\"\(text)\" is not one of \(options)")
        }
        return value
    }

    /// Every key not read so far is an error: a typo must not be silently ignored. Each is
    /// noted with the nearest key this object takes (`url`: did you mean `uri`?).
    package func rejectUnknownKeys() {
        for unknown in fields.keys.filter({ !used.contains($0) }).sorted() {
            let nearest = used.map { (key: $0, distance: ObjectReader.editDistance(unknown.lowercased(), $0.lowercased())) }
                .filter { $0.distance <= max(1, min(2, $0.key.count / 3)) }
                .min { ($0.distance, $0.key) < ($1.distance, $1.key) }
            problems.record(StoryboardError(path: path(unknown), message: "unknown key" + (nearest.map { "; did you mean \"\($0.key)\"?" } ?? "")))
        }
    }

    /// The error for a required key that is not there: when a key near it was written instead
    /// (`url` for `uri`), that key is the error, with the suggestion.
    package func missing(_ key: String) -> StoryboardError {
        if let error = invalid[key] { return error }
        let near = fields.keys.filter { !used.contains($0) && $0 != key }
            .map { (key: $0, distance: ObjectReader.editDistance($0.lowercased(), key.lowercased())) }
            .filter { $0.distance <= max(1, min(2, key.count / 3)) }
            .min { ($0.distance, $0.key) < ($1.distance, $1.key) }
        if let near { return StoryboardError(path: path(near.key), message: "unknown key; did you mean \"\(key)\"?") }
        return StoryboardError(path: path(key), message: "missing")
    }

    /// Whether `key` is present, whatever its value; if so it counts as read (a caller that
    /// rejects it says why itself, rather than "unknown key"). An absent key is not marked
    /// read, so a near miss of it is not told to write it ("did you mean").
    mutating func present(_ key: String) -> Bool {
        guard fields[key] != nil else { return false }
        used.insert(key)
        return true
    }

    /// Whether `key` was present but unusable (and so already noted).
    func hasInvalidValue(_ key: String) -> Bool {
        invalid[key] != nil
    }

    /// Edit distance counting insertions, deletions, substitutions and swaps of two neighbours
    /// (optimal string alignment): `fsp` is one edit from `fps`, as a typo is.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }

    private mutating func mismatch<T>(_ key: String, _ expected: String, _ value: JSONValue) -> T? {
        reject(key, "expected \(expected), got \(value.kind)")
    }

    package static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}
