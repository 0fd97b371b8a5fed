// MARK: - A value written back as JSON

extension JSONValue {
    /// Compact JSON, an object's keys in order (`JSONText`'s numbers and strings): the same value
    /// is always the same text, so two can be compared and shown.
    package var text: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .number(let value): JSONText.number(value)
        case .string(let value): JSONText.string(value)
        case .array(let values): "[" + values.map(\.text).joined(separator: ",") + "]"
        case .object(let fields):
            "{" + fields.keys.sorted().map { JSONText.string($0) + ":" + fields[$0]!.text }.joined(separator: ",") + "}"
        }
    }
}
