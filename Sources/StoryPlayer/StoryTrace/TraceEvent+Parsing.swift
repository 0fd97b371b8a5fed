import Foundation
import StoryBase
import StoryModel

// MARK: - Reading a trace line back

extension TraceEvent {
    /// Why one line of a trace file is not an event: errors as data, so `check` can report each
    /// line and `timeline` can skip it.
    public struct LineError: Error, Sendable, Equatable, CustomStringConvertible {
        public enum Code: Sendable, Equatable {
            /// The line is not a JSON object.
            case notAnObject
            /// `event` is missing or names no event this tool writes.
            case unknownEvent
            /// A field is there but holds something no trace of ours would write.
            case badField(String)
        }

        public let code: Code
        public let message: String
        public var description: String { message }
    }

    /// Reads one line of `lifecycle.jsonl`, the inverse of `jsonLine`.
    ///
    /// Fields other than `event` may be missing (`t` and `wall` read as 0, `story` as "?"), but a
    /// field that is there must hold what a trace writes: times finite and not negative, ids and
    /// counts whole numbers an `Int` holds. Traces are user input to `check` and `timeline`, and
    /// a number such as 1e300 must be reported, not turned into a crash or an endless time axis.
    public init(jsonLine line: some StringProtocol) throws(LineError) {
        guard case .object(let fields)? = try? JSONValue.parse(Data(line.utf8)) else {
            throw LineError(code: .notAnObject, message: "not a JSON object")
        }
        guard case .string(let name)? = fields["event"], let kind = Kind(rawValue: name) else {
            throw LineError(code: .unknownEvent, message: "missing or unknown \"event\"")
        }
        let reader = FieldReader(fields: fields)
        self.init(t: try reader.nonNegative("t") ?? 0, wall: try reader.nonNegative("wall") ?? 0, event: kind,
                  story: try reader.text("story") ?? "?", item: try reader.whole("item"), player: try reader.whole("player"),
                  error: try reader.text("error"), call: try reader.text("call"), attempt: try reader.whole("attempt"))
        pictures = try reader.whole("pictures")
        participant = try reader.text("participant")
        media = try reader.text("media")
        loaded = try reader.texts("loaded")
        detail = try reader.text("detail")
        layout = try reader.text("layout")
        page = try reader.whole("page")
        tiles = try reader.texts("tiles")
        moved = try reader.texts("moved")
        action = try reader.text("action")
        outcome = try reader.text("outcome")
        progress = try reader.nonNegative("progress")
        velocity = try reader.finite("velocity")
        gapMs = try reader.nonNegative("gap_ms")
        offsetMs = try reader.finite("offset_ms")
        fps = try reader.nonNegative("fps")
        jitterMs = try reader.nonNegative("jitter_ms")
        protocolName = try reader.text("protocol")
        targetMs = try reader.nonNegative("target_ms")
        jitterBufferMs = try reader.nonNegative("jitter_buffer_ms")
        output = try reader.text("output")
        file = try reader.text("file")
        duration = try reader.nonNegative("duration")
        bytes = try reader.whole("bytes")
        ms = try reader.nonNegative("ms")
        if let rebuffers = try reader.whole("rebuffers"), let dropped = try reader.whole("dropped") {
            var offset: OffsetStatistics?
            if let block = try reader.object("live_offset_ms") {
                guard let p50 = try block.nonNegative("p50"), let p95 = try block.nonNegative("p95"),
                      let max = try block.nonNegative("max") else {
                    throw LineError(code: .badField("live_offset_ms"), message: "\"live_offset_ms\" needs p50, p95 and max")
                }
                offset = OffsetStatistics(p50: p50, p95: p95, max: max)
            }
            live = LivePlaybackFigures(offsetMs: offset, offsetFrom: try reader.text("live_offset_from"),
                                       rebuffers: rebuffers, dropped: dropped)
            live?.series = try reader.samples("live_offset_series") ?? []
        }
        if let open = try reader.nonNegative("open_ms"), let packet = try reader.nonNegative("first_packet_ms"),
           let frame = try reader.nonNegative("first_frame_ms") {
            spans = FirstFrameSpans(openMs: open, firstPacketMs: packet, firstFrameMs: frame)
        }
    }
}

/// Typed access to one trace line's fields; each accessor returns nil for a missing field.
private struct FieldReader {
    let fields: [String: JSONValue]

    func nonNegative(_ key: String) throws(TraceEvent.LineError) -> Double? {
        guard let value = fields[key] else { return nil }
        guard case .number(let number) = value, number.isFinite, number >= 0 else {
            throw bad(key, "is not a finite number, 0 or more")
        }
        return number
    }

    func finite(_ key: String) throws(TraceEvent.LineError) -> Double? {
        guard let value = fields[key] else { return nil }
        guard case .number(let number) = value, number.isFinite else { throw bad(key, "is not a finite number") }
        return number
    }

    func object(_ key: String) throws(TraceEvent.LineError) -> FieldReader? {
        guard let value = fields[key] else { return nil }
        guard case .object(let inner) = value else { throw bad(key, "is not an object") }
        return FieldReader(fields: inner)
    }

    func whole(_ key: String) throws(TraceEvent.LineError) -> Int? {
        guard let value = fields[key] else { return nil }
        guard case .number(let number) = value, let whole = Int(exactly: number) else {
            throw bad(key, "is not a whole number")
        }
        return whole
    }

    func text(_ key: String) throws(TraceEvent.LineError) -> String? {
        guard let value = fields[key] else { return nil }
        guard case .string(let string) = value else { throw bad(key, "is not a string") }
        return string
    }

    /// `[[t, ms], …]`: pairs of finite numbers, 0 or more.
    func samples(_ key: String) throws(TraceEvent.LineError) -> [OffsetSample]? {
        guard let value = fields[key] else { return nil }
        guard case .array(let pairs) = value else { throw bad(key, "is not an array of [t, ms] pairs") }
        return try pairs.map { pair throws(TraceEvent.LineError) in
            guard case .array(let numbers) = pair, numbers.count == 2, case .number(let t) = numbers[0], case .number(let ms) = numbers[1],
                  t.isFinite, ms.isFinite, t >= 0, ms >= 0 else { throw bad(key, "is not an array of [t, ms] pairs") }
            return OffsetSample(t: t, ms: ms)
        }
    }

    func texts(_ key: String) throws(TraceEvent.LineError) -> [String]? {
        guard let value = fields[key] else { return nil }
        guard case .array(let elements) = value else { throw bad(key, "is not an array of strings") }
        return try elements.map { element throws(TraceEvent.LineError) in
            guard case .string(let string) = element else { throw bad(key, "is not an array of strings") }
            return string
        }
    }

    private func bad(_ key: String, _ problem: String) -> TraceEvent.LineError {
        TraceEvent.LineError(code: .badField(key), message: "\"\(key)\" \(problem)")
    }
}
