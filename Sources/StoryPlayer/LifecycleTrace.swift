import Foundation

/// One line of `lifecycle.jsonl`: something a player did, or a call it ignored.
public struct TraceEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case play, opened, firstFrame, ended, failed, stop, ignored, reconnect, preload
    }

    /// Timeline seconds.
    public var t: Double
    /// Wall-clock seconds since the render started.
    public var wall: Double
    public var event: Kind
    public var story: String
    public var item: Int?
    public var player: Int?
    /// FFmpeg's message, on `failed`.
    public var error: String?
    /// `play` or `stop`, on `ignored`.
    public var call: String?
    /// The try number, on `reconnect`.
    public var attempt: Int?
    /// Pictures the player delivered, on `stop`: 0 for a story left while it was still loading.
    public var pictures: Int?
    /// Time to first frame, on `firstFrame`.
    public var spans: FirstFrameSpans?
    /// What a `preload` brought in ("poster", "probe"), and the probe's findings.
    public var loaded: [String]?
    public var detail: String?

    public init(t: Double, wall: Double, event: Kind, story: String, item: Int? = nil, player: Int? = nil,
                error: String? = nil, call: String? = nil, attempt: Int? = nil, spans: FirstFrameSpans? = nil) {
        self.attempt = attempt
        self.spans = spans
        self.t = t
        self.wall = wall
        self.event = event
        self.story = story
        self.item = item
        self.player = player
        self.error = error
        self.call = call
    }

    /// The event as one JSON line, keys in a fixed order so traces diff cleanly.
    public var jsonLine: String {
        var fields = ["\"t\": \(JSONText.number(t))", "\"wall\": \(JSONText.number(wall))",
                      "\"event\": \(JSONText.string(event.rawValue))", "\"story\": \(JSONText.string(story))"]
        if let item { fields.append("\"item\": \(item)") }
        if let player { fields.append("\"player\": \(player)") }
        if let call { fields.append("\"call\": \(JSONText.string(call))") }
        if let attempt { fields.append("\"attempt\": \(attempt)") }
        if let pictures { fields.append("\"pictures\": \(pictures)") }
        if let loaded { fields.append("\"loaded\": [\(loaded.map(JSONText.string).joined(separator: ", "))]") }
        if let detail { fields.append("\"detail\": \(JSONText.string(detail))") }
        if let spans {
            fields.append("\"open_ms\": \(JSONText.number(spans.openMs))")
            fields.append("\"first_packet_ms\": \(JSONText.number(spans.firstPacketMs))")
            fields.append("\"first_frame_ms\": \(JSONText.number(spans.firstFrameMs))")
        }
        if let error { fields.append("\"error\": \(JSONText.string(error))") }
        return "{" + fields.joined(separator: ", ") + "}"
    }
}

/// Records what every player does, hands out player ids, and counts the players alive.
///
/// One trace per render; it is used from the render thread only.
public final class LifecycleTrace {
    public private(set) var events: [TraceEvent] = []
    public private(set) var peakAlive = 0
    public private(set) var alive: Set<Int> = []
    private var lastID = 0
    private let started = ContinuousClock.now

    public init() {}

    /// A player id never used before in this run.
    func nextPlayerID() -> Int {
        lastID += 1
        return lastID
    }

    /// Wall-clock seconds since the trace began.
    public var wall: Double {
        (ContinuousClock.now - started).seconds
    }

    /// Appends an event; returns its index, for `complete`.
    @discardableResult
    func record(_ kind: TraceEvent.Kind, t: Double, story: String, item: Int? = nil, player: Int? = nil,
                error: String? = nil, call: String? = nil, attempt: Int? = nil, spans: FirstFrameSpans? = nil,
                loaded: [String]? = nil, detail: String? = nil, pictures: Int? = nil) -> Int {
        if kind == .play, let player {
            alive.insert(player)
            peakAlive = max(peakAlive, alive.count)
        }
        if kind == .stop, let player { alive.remove(player) }
        var event = TraceEvent(t: t, wall: wall, event: kind, story: story, item: item, player: player,
                               error: error, call: call, attempt: attempt, spans: spans)
        event.loaded = loaded
        event.detail = detail
        event.pictures = pictures
        events.append(event)
        return events.count - 1
    }

    /// Fills in what a preload brought, for an event recorded when it was requested.
    func complete(_ index: Int, loaded: [String], detail: String?) {
        events[index].loaded = loaded
        events[index].detail = detail
    }

    /// Drops the events before timeline time `t` (a shard's trace covers only its range).
    func keepEvents(from t: Double) {
        events.removeAll { $0.t < t - 1e-9 }
    }

    /// The whole trace as JSON Lines.
    public var jsonLines: String {
        events.map { $0.jsonLine + "\n" }.joined()
    }
}

/// Minimal JSON text output, so trace and summary keys keep a fixed order.
enum JSONText {
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int(rounded)) }
        return String(format: "%.3f", rounded).replacingOccurrences(of: #"0+$"#, with: "", options: .regularExpression)
    }

    static func string(_ value: String) -> String {
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
