import Foundation

// MARK: - Reading WebVTT and SRT

extension CaptionTrack {
    /// A captions file that cannot be used as written: `line` (from 1) is where, when one line is.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let line: Int?
        public let message: String

        public var description: String { line.map { "line \($0): \(message)" } ?? message }
    }

    /// Reads a WebVTT file (it starts with `WEBVTT`) or an SRT file (any other). Both are blocks
    /// separated by blank lines, each with a `start --> end` line and the cue's text below it;
    /// WebVTT's `NOTE`, `STYLE` and `REGION` blocks and its cue settings are skipped.
    public init(text: String) throws(ParseError) {
        // Windows and old Mac line ends read as Unix ones; a UTF-8 byte order mark is skipped.
        var body = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        if body.hasPrefix("\u{FEFF}") { body.removeFirst() }
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let isWebVTT = lines.first.map { $0 == "WEBVTT" || $0.hasPrefix("WEBVTT ") || $0.hasPrefix("WEBVTT\t") } ?? false
        var cues: [CaptionCue] = []
        var index = isWebVTT ? CaptionTrack.blockEnd(lines, from: 0) : 0
        while index < lines.count {
            if lines[index].trimmingCharacters(in: .whitespaces).isEmpty {
                index += 1
                continue
            }
            let end = CaptionTrack.blockEnd(lines, from: index)
            let block = index..<end
            index = end
            if isWebVTT, let first = lines[block].first,
               ["NOTE", "STYLE", "REGION"].contains(where: { first == $0 || first.hasPrefix($0 + " ") || first.hasPrefix($0 + "\t") }) {
                continue
            }
            // The timing line is the first or, after an identifier (SRT's counter), the second.
            guard let timing = block.prefix(2).first(where: { lines[$0].contains("-->") }) else {
                throw ParseError(line: block.lowerBound + 1, message: "expected a cue: a line \"start --> end\" (e.g. 00:00:01.000 --> 00:00:02.500)")
            }
            let (start, stop) = try CaptionTrack.timing(lines[timing], line: timing + 1)
            let text = lines[(timing + 1)..<block.upperBound].joined(separator: "\n")
            cues.append(CaptionCue(start: start, end: stop, runs: CaptionTrack.runs(of: text)))
        }
        guard !cues.isEmpty else {
            throw ParseError(line: nil, message: isWebVTT ? "no cues" : "neither WebVTT (no WEBVTT line) nor SRT (no cues)")
        }
        self.init(cues: cues)
    }

    /// Reads a captions file from disk.
    public init(contentsOf path: String) throws(ParseError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ParseError(line: nil, message: "cannot read \(path): \(Storyboard.whyUnreadable(path))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ParseError(line: nil, message: "\(path) is not UTF-8 text")
        }
        try self.init(text: text)
    }

    /// The index after the last non-blank line of the block starting at `start`.
    private static func blockEnd(_ lines: [String], from start: Int) -> Int {
        var end = start
        while end < lines.count, !lines[end].trimmingCharacters(in: .whitespaces).isEmpty { end += 1 }
        return end
    }

    // MARK: - Times

    /// `start --> end`, each `hh:mm:ss.mmm` or `mm:ss.mmm` (SRT writes a comma for the dot), then
    /// WebVTT's cue settings, which are ignored: the render places every caption alike.
    private static func timing(_ text: String, line: Int) throws(ParseError) -> (Double, Double) {
        let sides = text.components(separatedBy: "-->")
        let startText = sides[0].trimmingCharacters(in: .whitespaces)
        let endText = sides[1].trimmingCharacters(in: .whitespaces).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? ""
        guard let start = seconds(startText) else { throw ParseError(line: line, message: "\"\(startText)\" is not a time (hh:mm:ss.mmm)") }
        guard let end = seconds(endText) else { throw ParseError(line: line, message: "\"\(endText)\" is not a time (hh:mm:ss.mmm)") }
        guard end > start else { throw ParseError(line: line, message: "the cue ends (\(endText)) before it starts (\(startText))") }
        return (start, end)
    }

    /// Seconds of `[hh:]mm:ss[.,]mmm`; nil when it is not such a time.
    static func seconds(_ text: String) -> Double? {
        let parts = text.replacingOccurrences(of: ",", with: ".").split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count) else { return nil }
        // Hours up to a million: far past any item's length, and far from overflowing the sum.
        let wholeNumbers = parts.dropLast().map { Int($0) }
        guard wholeNumbers.allSatisfy({ $0 != nil && (0..<1_000_000).contains($0!) }), let last = parts.last,
              last.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let secondsPart = Double(last),
              secondsPart < 60 else { return nil }
        let (hours, minutes) = parts.count == 3 ? (wholeNumbers[0]!, wholeNumbers[1]!) : (0, wholeNumbers[0]!)
        guard minutes < 60 || parts.count == 2 else { return nil }
        return Double(hours * 3600 + minutes * 60) + secondsPart
    }

    // MARK: - Text

    /// The cue's text in runs: `<b>`, `<i>` and `<u>` kept as styles, every other tag dropped,
    /// the entities WebVTT defines decoded.
    static func runs(of text: String) -> [CaptionRun] {
        var runs: [CaptionRun] = []
        var current = CaptionRun(text: "")
        var depth = (bold: 0, italic: 0, underline: 0)
        func flush() {
            if !current.text.isEmpty { runs.append(current) }
            current = CaptionRun(text: "", bold: depth.bold > 0, italic: depth.italic > 0, underline: depth.underline > 0)
        }
        var rest = Substring(text)
        while let character = rest.first {
            if character == "<", let close = rest.firstIndex(of: ">") {
                let tag = rest[rest.index(after: rest.startIndex)..<close]
                rest = rest[rest.index(after: close)...]
                let closing = tag.hasPrefix("/")
                let name = tag.drop(while: { $0 == "/" }).prefix(while: { $0.isLetter }).lowercased()
                let step = closing ? -1 : 1
                switch name {
                case "b": flush(); depth.bold = max(0, depth.bold + step)
                case "i": flush(); depth.italic = max(0, depth.italic + step)
                case "u": flush(); depth.underline = max(0, depth.underline + step)
                default: continue
                }
                current = CaptionRun(text: "", bold: depth.bold > 0, italic: depth.italic > 0, underline: depth.underline > 0)
                continue
            }
            if character == "&", let semicolon = rest.prefix(8).firstIndex(of: ";"),
               let decoded = entities[String(rest[rest.startIndex...semicolon])] {
                current.text += decoded
                rest = rest[rest.index(after: semicolon)...]
                continue
            }
            current.text.append(character)
            rest = rest.dropFirst()
        }
        flush()
        return runs
    }

    private static let entities = ["&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": "\"", "&apos;": "'",
                                   "&nbsp;": "\u{00A0}", "&lrm;": "\u{200E}", "&rlm;": "\u{200F}"]
}
