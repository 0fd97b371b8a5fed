import Foundation

/// A parsed JSON document, kept exact: booleans stay booleans, numbers stay numbers.
package enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// What the value is, for "expected X, got Y" messages.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue: Decodable {
    package init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses a document; the error says where the syntax broke.
    package static func parse(_ data: Data) throws(StoryboardError) -> JSONValue {
        do {
            try JSONSyntax.check(Array(data))
        } catch {
            throw StoryboardError(path: "", message: "not valid JSON: \(error.description)")
        }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            let detail = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            throw StoryboardError(path: "", message: "not valid JSON" + (detail.map { ": \($0)" } ?? ""))
        } catch {
            throw StoryboardError(path: "", message: "not valid JSON: \(error)")
        }
    }
}
