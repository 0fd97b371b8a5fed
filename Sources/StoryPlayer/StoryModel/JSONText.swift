import Foundation

/// Minimal JSON text output, so trace and summary keys keep a fixed order.
package enum JSONText {
    package static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        // Past 1e15 a Double has no thousandths left to keep, and "%.3f" of a whole number less
        // its zeros ends in a bare "." (not JSON; the trace-line fuzzer found it): Swift's
        // shortest form ("5.5e+86") reads back as the same number.
        guard abs(value) < 1e15 else { return "\(value)" }
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return String(format: "%.3f", rounded).replacingOccurrences(of: #"0+$"#, with: "", options: .regularExpression)
    }

    package static func string(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20: out += String(format: "\\u%04x", c.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
