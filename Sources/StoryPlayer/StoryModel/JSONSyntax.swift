import Foundation

/// A strict check of JSON syntax (RFC 8259) that says where it breaks, by line and column.
///
/// Foundation's decoder accepts a trailing comma and reports a broken document by byte offset
/// at best; a person who wrote a storyboard by hand wants "line 7, column 3: a trailing comma".
/// This runs before the decoder and checks syntax only: values are read by `JSONValue`.
struct JSONSyntax {
    struct Failure: Error, Equatable {
        /// 1-based, counted in lines and UTF-8 bytes, as editors show them for ASCII text.
        let line: Int
        let column: Int
        let message: String

        var description: String { "line \(line), column \(column): \(message)" }
    }

    private let bytes: [UInt8]
    private var index = 0
    /// Nesting deeper than this is refused rather than risking the stack on hostile input.
    private static let maxDepth = 512

    /// Throws the first syntax error in `bytes`.
    static func check(_ bytes: [UInt8]) throws(Failure) {
        var reader = JSONSyntax(bytes: bytes)
        reader.skipSpace()
        try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.index == bytes.count else { throw reader.failure("unexpected text after the document") }
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    // MARK: - Values

    private mutating func value(depth: Int) throws(Failure) {
        guard depth < JSONSyntax.maxDepth else { throw failure("nested more than \(JSONSyntax.maxDepth) deep") }
        guard let byte = peek else { throw failure("the document ends where a value was expected") }
        switch byte {
        case UInt8(ascii: "{"): try container(close: UInt8(ascii: "}"), depth: depth, keyed: true)
        case UInt8(ascii: "["): try container(close: UInt8(ascii: "]"), depth: depth, keyed: false)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw failure("expected a value, found \(shown(byte))")
        }
    }

    /// An object or an array: members separated by commas, none after the last.
    private mutating func container(close: UInt8, depth: Int, keyed: Bool) throws(Failure) {
        index += 1
        skipSpace()
        if peek == close {
            index += 1
            return
        }
        // A key written twice is a slip (a member copied and not renamed): Foundation keeps one
        // of the two values without a word, so it is refused here, where it can be pointed at.
        // Keys compare as the strings they stand for, as Foundation's dictionary holds them:
        // "uri" and "\u0075ri" are one key, and so are two spellings of an accented letter.
        var keys = Set<String>()
        while true {
            if keyed {
                guard peek == UInt8(ascii: "\"") else {
                    throw failure(peek == nil ? "the document ends inside an object" : "expected a key in double quotes, found \(shown(peek!))")
                }
                let keyStart = index
                try string()
                let key = JSONSyntax.unescaped(bytes[keyStart..<index])
                guard keys.insert(key).inserted else {
                    index = keyStart
                    throw failure("the key \"\(key)\" is already in this object: each key may appear once")
                }
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw failure("expected ':' after the key") }
                index += 1
                skipSpace()
            }
            try value(depth: depth + 1)
            skipSpace()
            guard let next = peek else { throw failure("the document ends before '\(Character(Unicode.Scalar(close)))'") }
            if next == close {
                index += 1
                return
            }
            guard next == UInt8(ascii: ",") else {
                throw failure("expected ',' or '\(Character(Unicode.Scalar(close)))', found \(shown(next))")
            }
            let comma = index
            index += 1
            skipSpace()
            if peek == close {
                index = comma
                throw failure("a trailing comma: JSON allows no comma after the last \(keyed ? "member" : "element")")
            }
        }
    }

    private mutating func string() throws(Failure) {
        index += 1
        while let byte = peek {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return
            case UInt8(ascii: "\\"):
                index += 1
                guard let escaped = peek, Array("\"\\/bfnrtu".utf8).contains(escaped) else { throw failure("a bad escape in a string") }
                index += 1
                if escaped == UInt8(ascii: "u") {
                    for _ in 0..<4 {
                        guard let hex = peek, (hex >= 48 && hex <= 57) || (hex | 0x20 >= 97 && hex | 0x20 <= 102) else {
                            throw failure("a \\u escape needs four hex digits")
                        }
                        index += 1
                    }
                }
            case 0..<0x20:
                throw failure("a control character in a string (write \\n or \\t)")
            case 0x80...:
                try utf8Sequence()
            default:
                index += 1
            }
        }
        throw failure("the document ends inside a string")
    }

    /// One multi-byte UTF-8 character in a string (RFC 3629: no overlong forms, no surrogates,
    /// nothing past U+10FFFF). Foundation refuses other bytes with a message about types.
    private mutating func utf8Sequence() throws(Failure) {
        let lead = bytes[index]
        let (count, low, high): (Int, UInt8, UInt8) = switch lead {
        case 0xC2...0xDF: (1, 0x80, 0xBF)
        case 0xE0: (2, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (2, 0x80, 0xBF)
        case 0xED: (2, 0x80, 0x9F)
        case 0xF0: (3, 0x90, 0xBF)
        case 0xF1...0xF3: (3, 0x80, 0xBF)
        case 0xF4: (3, 0x80, 0x8F)
        default: (0, 0, 0)
        }
        guard count > 0 else { throw failure("not UTF-8: \(shown(lead)) cannot start a character (save the file as UTF-8)") }
        for offset in 1...count {
            let (lowest, highest) = offset == 1 ? (low, high) : (0x80, 0xBF)
            guard index + offset < bytes.count, (lowest...highest).contains(bytes[index + offset]) else {
                throw failure("not UTF-8: \(shown(lead)) is not followed by the bytes of a character (save the file as UTF-8)")
            }
        }
        index += count + 1
    }

    /// The string a checked string literal (quotes included) stands for, its escapes read by
    /// Foundation's decoder, as `JSONValue` reads every value. A literal it refuses (a lone
    /// surrogate, which the syntax allows) stands for its own bytes.
    static func unescaped(_ literal: ArraySlice<UInt8>) -> String {
        let inside = literal.dropFirst().dropLast()
        guard inside.contains(UInt8(ascii: "\\")),
              let read = try? JSONDecoder().decode(String.self, from: Data(literal)) else {
            return String(decoding: inside, as: UTF8.self)
        }
        return read
    }

    private mutating func number() throws(Failure) {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, isDigit(first) else { throw failure("a number needs digits") }
        index += 1
        if first != UInt8(ascii: "0") { while let d = peek, isDigit(d) { index += 1 } }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard let d = peek, isDigit(d) else { throw failure("a number needs digits after '.'") }
            while let d = peek, isDigit(d) { index += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard let d = peek, isDigit(d) else { throw failure("a number needs digits in its exponent") }
            while let d = peek, isDigit(d) { index += 1 }
        }
        // Values are read as 64-bit floats: a number that becomes infinity, or zero although it
        // is not, would not be the number written.
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        let value = Double(text) ?? .infinity
        let mantissa = text.prefix { $0 != "e" && $0 != "E" }
        if !value.isFinite || (value == 0 && mantissa.contains { ("1"..."9").contains($0) }) {
            index = start
            throw failure("the number \(text) is out of range (numbers here are 64-bit floats: about 1e-308 to 1e308)")
        }
    }

    private mutating func literal(_ word: String) throws(Failure) {
        for expected in word.utf8 {
            guard peek == expected else { throw failure("expected \(word)") }
            index += 1
        }
    }

    // MARK: - Reading

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    private mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private func shown(_ byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "byte 0x%02X", byte)
    }

    /// A failure at the current position.
    private func failure(_ message: String) -> Failure {
        var line = 1, lineStart = 0
        for (offset, byte) in bytes[..<min(index, bytes.count)].enumerated() where byte == 0x0A {
            line += 1
            lineStart = offset + 1
        }
        return Failure(line: line, column: index - lineStart + 1, message: message)
    }
}
