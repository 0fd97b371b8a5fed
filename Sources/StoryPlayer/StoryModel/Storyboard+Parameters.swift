import Compositor
import Foundation

/// A storyboard's `parameters`: named values, each declared with a type and usually a default,
/// that `"{{name}}"` in any string of the storyboard refers to. One storyboard so makes many
/// variants (a product clip for 40 products, 12 languages): each variant gives its values
/// (`render --set name=value`), and the storyboard is read with them filled in.
///
/// A string that is a reference and nothing else takes the parameter's value whole, typed
/// (`"duration": "{{length}}"` becomes a number); a reference inside a longer string is written
/// into it as text (`"uri": "clips/{{lang}}.mp4"`).
public struct StoryParameter: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case string, number, bool, colour, file, url
    }

    public var name: String
    public var kind: Kind
    /// The value when a variant gives none, already checked.
    public var defaultValue: Value?
    /// `enum`: the values allowed (a string or number parameter).
    public var allowed: [Value]?
    /// `min` and `max` of a number.
    public var minimum: Double?
    public var maximum: Double?

    /// A parameter's value, as it replaces a whole `"{{name}}"`.
    public enum Value: Sendable, Equatable, CustomStringConvertible {
        case text(String)
        case number(Double)
        case bool(Bool)

        /// As it is written into a longer string.
        public var description: String {
            switch self {
            case .text(let text): text
            case .number(let number): JSONText.number(number)
            case .bool(let bool): bool ? "true" : "false"
            }
        }

        var json: JSONValue {
            switch self {
            case .text(let text): .string(text)
            case .number(let number): .number(number)
            case .bool(let bool): .bool(bool)
            }
        }
    }
}

extension Storyboard {
    /// The top-level `parameters` key, and the references to them.
    static let parametersKey = "parameters"

    /// The parameters `text` declares (its `parameters` object), in name order; a storyboard
    /// error naming the JSON path of a declaration that cannot be used.
    public static func parameters(json: Data, folder: String) throws(StoryboardError) -> [StoryParameter] {
        let text = json.starts(with: [0xEF, 0xBB, 0xBF]) ? json.dropFirst(3) : json
        guard case .object(let root) = try JSONValue.parse(Data(text)) else { return [] }
        let problems = StoryboardProblems()
        let declared = declaredParameters(root[parametersKey], folder: folder, problems: problems)
        try problems.check()
        return declared.sorted { $0.name < $1.name }
    }

    /// Reads the declarations of `parameters` (nil: none).
    static func declaredParameters(_ value: JSONValue?, folder: String, problems: StoryboardProblems) -> [StoryParameter] {
        guard let value else { return [] }
        guard case .object(let fields) = value else {
            problems.record(StoryboardError(path: parametersKey, message: "must be an object of parameters, each {\"type\": …, \"default\": …}"))
            return []
        }
        var declared: [StoryParameter] = []
        for name in fields.keys.sorted() {
            let path = "\(parametersKey).\(name)"
            guard name.range(of: #"^[A-Za-z_][A-Za-z0-9_-]*$"#, options: .regularExpression) != nil else {
                problems.record(StoryboardError(path: path, message: "a parameter's name is letters, digits, _ and -, starting with a letter or _"))
                continue
            }
            guard let reader = try? ObjectReader(fields[name]!, path: path, problems: problems) else { continue }
            var entry = reader
            guard let kind = entry.choice("type", of: StoryParameter.Kind.self) else {
                if !entry.present("type") {
                    problems.record(StoryboardError(path: path + ".type",
                                                    message: "missing: one of \(StoryParameter.Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))"))
                }
                continue
            }
            var parameter = StoryParameter(name: name, kind: kind)
            parameter.minimum = entry.number("min", in: -1e15...1e15)
            parameter.maximum = entry.number("max", in: -1e15...1e15)
            if kind != .number, entry.present("min") || entry.present("max") {
                problems.record(StoryboardError(path: path, message: "min and max are for a number parameter"))
            }
            if let low = parameter.minimum, let high = parameter.maximum, high < low {
                problems.record(StoryboardError(path: path + ".max", message: "must be at least min (\(JSONText.number(low)))"))
            }
            let rawAllowed = entry.raw("enum")
            let rawDefault = entry.raw("default")
            entry.rejectUnknownKeys()
            if let rawAllowed {
                guard case .array(let values) = rawAllowed, !values.isEmpty else {
                    problems.record(StoryboardError(path: path + ".enum", message: "must be a non-empty array of the parameter's values"))
                    continue
                }
                var allowed: [StoryParameter.Value] = []
                for (index, value) in values.enumerated() {
                    do {
                        allowed.append(try parameter.checked(value, folder: folder, checkingEnum: false))
                    } catch {
                        problems.record(StoryboardError(path: "\(path).enum[\(index)]", message: error.message))
                    }
                }
                parameter.allowed = allowed
            }
            if let rawDefault {
                do {
                    parameter.defaultValue = try parameter.checked(rawDefault, folder: folder)
                } catch {
                    problems.record(StoryboardError(path: path + ".default", message: error.message))
                }
            }
            declared.append(parameter)
        }
        return declared
    }

    /// Fills `root`'s references to its parameters with `values` (a variant's, by name, as
    /// given on the command line or in a row of data), else the defaults; drops the `parameters`
    /// key. Every problem is recorded with its JSON path; `row` names the variant's row in them.
    static func fillingParameters(_ root: JSONValue, values: [String: String], folder: String, row: String?,
                                  problems: StoryboardProblems) -> JSONValue {
        guard case .object(var fields) = root else { return root }
        let declared = declaredParameters(fields[parametersKey], folder: folder, problems: problems)
        fields[parametersKey] = nil
        let of = row.map { " (\($0))" } ?? ""
        for name in values.keys.sorted() where !declared.contains(where: { $0.name == name }) {
            let known = declared.map(\.name)
            problems.record(StoryboardError(path: parametersKey, message: "no parameter \(name) is declared\(of)"
                                            + (known.isEmpty ? "" : "; the storyboard declares \(known.joined(separator: ", "))")))
        }
        var resolved: [String: StoryParameter.Value] = [:]
        for parameter in declared {
            let path = "\(parametersKey).\(parameter.name)"
            if let given = values[parameter.name] {
                do {
                    resolved[parameter.name] = try parameter.checked(given: given, folder: folder)
                } catch {
                    problems.record(StoryboardError(path: path, message: "\(parameter.name)=\(given)\(of): \(error.message)"))
                    // Its references take the default meanwhile, so the one mistake is reported once.
                    if let value = parameter.defaultValue { resolved[parameter.name] = value }
                }
            } else if let value = parameter.defaultValue {
                resolved[parameter.name] = value
            } else {
                problems.record(StoryboardError(path: path, message: "no value\(of): give one (--set \(parameter.name)=…) or a \"default\""))
            }
        }
        let known = Set(declared.map(\.name))
        return .object(fields.mapValues { $0 }).filled(path: "", values: resolved, known: known, problems: problems, row: of)
    }
}

// MARK: - Checking a value

extension StoryParameter {
    /// A value as the storyboard writes it (`default`, `enum`), checked against the type.
    func checked(_ value: JSONValue, folder: String, checkingEnum: Bool = true) throws(StoryboardError) -> Value {
        let checkedValue: Value
        switch (kind, value) {
        case (.number, .number(let number)): checkedValue = .number(number)
        case (.bool, .bool(let bool)): checkedValue = .bool(bool)
        case (.string, .string(let text)), (.colour, .string(let text)), (.file, .string(let text)), (.url, .string(let text)):
            return try checked(given: text, folder: folder, checkingEnum: checkingEnum)
        default:
            throw StoryboardError(path: "", message: "must be \(kind.spoken), not \(value.kind)")
        }
        return try bounded(checkedValue, checkingEnum: checkingEnum)
    }

    /// A value given as text (`--set name=value`, a cell of CSV), read as the type says.
    func checked(given text: String, folder: String, checkingEnum: Bool = true) throws(StoryboardError) -> Value {
        let value: Value
        switch kind {
        case .string:
            value = .text(text)
        case .number:
            guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite else {
                throw StoryboardError(path: "", message: "\"\(text)\" is not a number")
            }
            value = .number(number)
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": value = .bool(true)
            case "false", "no", "0": value = .bool(false)
            default: throw StoryboardError(path: "", message: "\"\(text)\" is not true or false")
            }
        case .colour:
            guard RGBAColor(parsing: text) != nil else {
                throw StoryboardError(path: "", message: "\"\(text)\" is not a colour (\(RGBAColor.spokenForms))")
            }
            value = .text(text)
        case .file:
            // A file is named relative to the storyboard's folder and must stay inside it: a row
            // of data from elsewhere must not make a render read the machine's files.
            guard !text.isEmpty, MediaSource.scheme(of: text) == nil else {
                throw StoryboardError(path: "", message: "\"\(text)\" is not a file in the storyboard's folder")
            }
            let absolute = folder.hasPrefix("/") ? folder : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(folder)
            let base = (absolute as NSString).standardizingPath
            let resolved = ((text.hasPrefix("/") ? text : (base as NSString).appendingPathComponent(text)) as NSString).standardizingPath
            guard resolved.hasPrefix(base.hasSuffix("/") ? base : base + "/") else {
                throw StoryboardError(path: "", message: "\"\(text)\" is outside the storyboard's folder (\(base)): refused")
            }
            value = .text(text)
        case .url:
            guard let scheme = MediaSource.scheme(of: text), scheme != "file", text.contains("://") else {
                throw StoryboardError(path: "", message: "\"\(text)\" is not a URL (scheme://…)")
            }
            value = .text(text)
        }
        return try bounded(value, checkingEnum: checkingEnum)
    }

    private func bounded(_ value: Value, checkingEnum: Bool) throws(StoryboardError) -> Value {
        if case .number(let number) = value {
            if let minimum, number < minimum { throw StoryboardError(path: "", message: "\(JSONText.number(number)) is below min \(JSONText.number(minimum))") }
            if let maximum, number > maximum { throw StoryboardError(path: "", message: "\(JSONText.number(number)) is above max \(JSONText.number(maximum))") }
        }
        if checkingEnum, let allowed, !allowed.contains(value) {
            throw StoryboardError(path: "", message: "\"\(value)\" is not one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        return value
    }
}

extension StoryParameter.Kind {
    var spoken: String {
        switch self {
        case .string: "a string"
        case .number: "a number"
        case .bool: "true or false"
        case .colour: "a colour string"
        case .file: "a file name"
        case .url: "a URL"
        }
    }
}

// MARK: - Filling references

extension JSONValue {
    /// This value with every `{{name}}` in its strings filled from `values`; a reference to a
    /// name not in `known` is an error at its path.
    func filled(path: String, values: [String: StoryParameter.Value], known: Set<String>, problems: StoryboardProblems,
                row: String) -> JSONValue {
        switch self {
        case .string(let text):
            guard text.contains("{{") else { return self }
            return JSONValue.fill(text, path: path, values: values, known: known, problems: problems, row: row)
        case .array(let items):
            return .array(items.enumerated().map { index, item in
                item.filled(path: "\(path)[\(index)]", values: values, known: known, problems: problems, row: row)
            })
        case .object(let fields):
            var result: [String: JSONValue] = [:]
            for (key, value) in fields {
                result[key] = value.filled(path: path.isEmpty ? key : "\(path).\(key)", values: values, known: known,
                                           problems: problems, row: row)
            }
            return .object(result)
        default:
            return self
        }
    }

    /// `text` with its references filled: the value itself, typed, for a string that is one
    /// reference and nothing else; else the text with each reference written in.
    private static func fill(_ text: String, path: String, values: [String: StoryParameter.Value], known: Set<String>,
                             problems: StoryboardProblems, row: String) -> JSONValue {
        let pattern = /\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}/
        if let whole = text.wholeMatch(of: pattern) {
            let name = String(whole.output.1)
            guard known.contains(name) else {
                problems.record(StoryboardError(path: path, message: "\"{{\(name)}}\" names no parameter\(row)"
                                                + (known.isEmpty ? " (the storyboard declares none)" : "; declared: \(known.sorted().joined(separator: ", "))")))
                return .string(text)
            }
            return values[name]?.json ?? .string(text)
        }
        var result = ""
        var rest = Substring(text)
        while let match = rest.firstMatch(of: pattern) {
            result += rest[..<match.range.lowerBound]
            let name = String(match.output.1)
            if known.contains(name) {
                result += values[name]?.description ?? ""
            } else {
                problems.record(StoryboardError(path: path, message: "\"{{\(name)}}\" names no parameter\(row)"
                                                + (known.isEmpty ? " (the storyboard declares none)" : "; declared: \(known.sorted().joined(separator: ", "))")))
                result += rest[match.range]
            }
            rest = rest[match.range.upperBound...]
        }
        return .string(result + rest)
    }
}
