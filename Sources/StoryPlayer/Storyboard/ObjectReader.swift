import Foundation

/// Reads one JSON object, remembering which keys were used so the rest can be reported.
struct ObjectReader {
    let prefix: String
    private let fields: [String: JSONValue]
    private var used: Set<String> = []

    init(_ value: JSONValue, path: String) throws(StoryboardError) {
        guard case .object(let fields) = value else {
            throw StoryboardError(path: path, message: "expected an object, got \(value.kind)")
        }
        self.prefix = path
        self.fields = fields
    }

    func path(_ key: String) -> String {
        prefix.isEmpty ? key : "\(prefix).\(key)"
    }

    private mutating func take(_ key: String) -> JSONValue? {
        used.insert(key)
        return fields[key]
    }

    mutating func object(_ key: String) throws(StoryboardError) -> ObjectReader? {
        guard let value = take(key) else { return nil }
        return try ObjectReader(value, path: path(key))
    }

    mutating func array(_ key: String) throws(StoryboardError) -> [JSONValue]? {
        guard let value = take(key) else { return nil }
        guard case .array(let items) = value else { throw mismatch(key, "an array", value) }
        return items
    }

    mutating func string(_ key: String) throws(StoryboardError) -> String? {
        guard let value = take(key) else { return nil }
        guard case .string(let text) = value else { throw mismatch(key, "a string", value) }
        return text
    }

    /// A string that may also be JSON null (nil either way).
    mutating func nullableString(_ key: String) throws(StoryboardError) -> String? {
        if case .null? = fields[key] {
            used.insert(key)
            return nil
        }
        return try string(key)
    }

    mutating func bool(_ key: String) throws(StoryboardError) -> Bool? {
        guard let value = take(key) else { return nil }
        guard case .bool(let flag) = value else { throw mismatch(key, "a boolean", value) }
        return flag
    }

    mutating func number(_ key: String, in range: ClosedRange<Double>) throws(StoryboardError) -> Double? {
        guard let value = take(key) else { return nil }
        guard case .number(let number) = value, number.isFinite else { throw mismatch(key, "a number", value) }
        guard range.contains(number) else {
            throw StoryboardError(path: path(key), message: "\(Self.format(number)) is out of range (\(Self.format(range.lowerBound)) to \(Self.format(range.upperBound)))")
        }
        return number
    }

    mutating func integer(_ key: String, in range: ClosedRange<Int>) throws(StoryboardError) -> Int? {
        guard let value = take(key) else { return nil }
        guard case .number(let number) = value, number.isFinite, number == number.rounded() else {
            throw mismatch(key, "an integer", value)
        }
        guard number >= Double(range.lowerBound) && number <= Double(range.upperBound) else {
            throw StoryboardError(path: path(key), message: "\(Self.format(number)) is out of range (\(range.lowerBound) to \(range.upperBound))")
        }
        return Int(number)
    }

    mutating func choice<T: RawRepresentable & CaseIterable>(_ key: String, of type: T.Type) throws(StoryboardError) -> T?
    where T.RawValue == String {
        guard let text = try string(key) else { return nil }
        guard let value = T(rawValue: text) else {
            let options = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw StoryboardError(path: path(key), message: "\"\(text)\" is not one of \(options)")
        }
        return value
    }

    /// Every key not read so far is an error: a typo must not be silently ignored. The error
    /// suggests the nearest key this object takes (`url`: did you mean `uri`?).
    func rejectUnknownKeys() throws(StoryboardError) {
        guard let unknown = fields.keys.filter({ !used.contains($0) }).sorted().first else { return }
        let nearest = used.map { (key: $0, distance: ObjectReader.editDistance(unknown.lowercased(), $0.lowercased())) }
            .filter { $0.distance <= max(1, min(2, $0.key.count / 3)) }
            .min { ($0.distance, $0.key) < ($1.distance, $1.key) }
        throw StoryboardError(path: path(unknown), message: "unknown key" + (nearest.map { "; did you mean \"\($0.key)\"?" } ?? ""))
    }

    /// The error for a required key that is not there: when a key near it was written instead
    /// (`url` for `uri`), that key is the error, with the suggestion.
    func missing(_ key: String) -> StoryboardError {
        let near = fields.keys.filter { !used.contains($0) && $0 != key }
            .map { (key: $0, distance: ObjectReader.editDistance($0.lowercased(), key.lowercased())) }
            .filter { $0.distance <= max(1, min(2, key.count / 3)) }
            .min { ($0.distance, $0.key) < ($1.distance, $1.key) }
        if let near { return StoryboardError(path: path(near.key), message: "unknown key; did you mean \"\(key)\"?") }
        return StoryboardError(path: path(key), message: "missing")
    }

    /// Edit distance counting insertions, deletions, substitutions and swaps of two neighbours
    /// (optimal string alignment): `fsp` is one edit from `fps`, as a typo is.
    static func editDistance(_ a: String, _ b: String) -> Int {
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

    private func mismatch(_ key: String, _ expected: String, _ value: JSONValue) -> StoryboardError {
        StoryboardError(path: path(key), message: "expected \(expected), got \(value.kind)")
    }

    static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}
