import Foundation
import StoryModel

/// One way two renders' traces (`lifecycle.jsonl`) differ: an event only B has (`added`), one
/// only A has (`removed`), or the same event (the same kind, story, item, player,
/// participant, media and output) with other values (`changed`: a player created a frame
/// later, a different `live_offset_ms`).
public struct TraceDifference: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable { case added, removed, changed }

    public let kind: Kind
    public let event: String
    public let story: String?
    /// The frame the event belongs to (its `t` × the render's fps): B's for an added or
    /// changed event, A's for a removed one; nil without a summary to read the fps from.
    public let frame: Int?
    /// The event's line in each trace, from 1.
    public let lineA: Int?
    public let lineB: Int?
    /// The fields whose values differ (`changed`), each as A's and B's JSON.
    public let fields: [String: [String]]?

    enum CodingKeys: String, CodingKey {
        case kind, event, story, frame, fields
        case lineA = "line_a"
        case lineB = "line_b"
    }
}

/// Two traces compared event by event: the events aligned by who they are about (Myers' diff,
/// as frames are), then each pair's other fields compared.
enum TraceComparison {
    /// Fields that make an event the same event in both traces.
    static let identity = ["event", "story", "item", "player", "participant", "media", "output"]
    /// Fields measured against the wall clock, which differ from run to run of the same render.
    static let wallClockFields: Set<String> = ["wall", "open_ms", "first_packet_ms", "first_frame_ms"]

    struct Event {
        let line: Int
        let fields: [String: JSONValue]
        var key: String { TraceComparison.identity.map { fields[$0]?.text ?? "-" }.joined(separator: "|") }
        var name: String { if case .string(let s)? = fields["event"] { s } else { "?" } }
        var story: String? { if case .string(let s)? = fields["story"] { s } else { nil } }
        var t: Double? { if case .number(let n)? = fields["t"] { n } else { nil } }
    }

    /// The events of a trace file's lines (a line that is not a JSON object is skipped).
    static func events(inTrace path: String) -> [Event]? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { (i, line) in
            guard case .object(let fields)? = try? JSONValue.parse(Data(line.utf8)) else { return nil }
            return Event(line: i + 1, fields: fields)
        }
    }

    /// The differences of `b` from `a`, in B's order; `ignored` fields (and the wall clock's)
    /// do not count. `fpsA` and `fpsB` place each event on a frame.
    static func differences(_ a: [Event], _ b: [Event], ignored: Set<String>, fpsA: Double?, fpsB: Double?) -> [TraceDifference] {
        let keys = Dictionary(uniqueKeysWithValues: Set(a.map(\.key) + b.map(\.key)).enumerated().map { ($1, UInt64($0)) })
        let keysA = a.map { keys[$0.key]! }, keysB = b.map { keys[$0.key]! }
        // Traces far apart (past 4000 events added and removed, or a band past 256 MB) pair in order.
        let steps = FrameAlignment.align(keysA, keysB, maxEdits: min(a.count + b.count, 4000))
            ?? FrameAlignment.byIndex(keysA, keysB)
        let skipped = ignored.union(wallClockFields)
        var differences: [TraceDifference] = []
        func note(_ kind: TraceDifference.Kind, _ event: Event, fps: Double?, lineA: Int?, lineB: Int?, fields: [String: [String]]? = nil) {
            let frame = fps.flatMap { fps in event.t.map { Int(($0 * fps).rounded()) } }
            differences.append(TraceDifference(kind: kind, event: event.name, story: event.story, frame: frame, lineA: lineA,
                                               lineB: lineB, fields: fields))
        }
        for step in steps {
            switch step {
            case .same(let i, let j):
                let changed = changedFields(a[i].fields, b[j].fields, skipping: skipped)
                if !changed.isEmpty { note(.changed, b[j], fps: fpsB, lineA: a[i].line, lineB: b[j].line, fields: changed) }
            case .replaced(let i, let j):
                note(.removed, a[i], fps: fpsA, lineA: a[i].line, lineB: nil)
                note(.added, b[j], fps: fpsB, lineA: nil, lineB: b[j].line)
            case .deleted(let i): note(.removed, a[i], fps: fpsA, lineA: a[i].line, lineB: nil)
            case .inserted(let j): note(.added, b[j], fps: fpsB, lineA: nil, lineB: b[j].line)
            }
        }
        return differences
    }

    /// The fields of two events' that differ, each as A's and B's JSON ("-" for missing).
    static func changedFields(_ a: [String: JSONValue], _ b: [String: JSONValue], skipping: Set<String>) -> [String: [String]] {
        var changed: [String: [String]] = [:]
        for name in Set(a.keys).union(b.keys) where !skipping.contains(name) && a[name] != b[name] {
            changed[name] = [a[name]?.text ?? "-", b[name]?.text ?? "-"]
        }
        return changed
    }
}
