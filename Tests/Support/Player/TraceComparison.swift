import StoryTrace

// Comparing traces: a shard merge's against the whole render's (shard and room tests).

/// A trace's lines with what differs from run to run (wall-clock times, spans) taken out;
/// as lines, since a trace's numbers are written to the millisecond.
public func comparableLines(_ events: [TraceEvent]) -> [String] {
    events.map { event in
        var event = event
        event.wall = 0
        event.spans = nil
        return event.jsonLine
    }
}

/// Where two traces first part, for a message that fits on a line.
public func firstDifference(_ a: [String], _ b: [String]) -> String {
    guard let index = a.indices.first(where: { $0 < b.count && a[$0] != b[$0] }) ?? (a.count == b.count ? nil : min(a.count, b.count)) else {
        return "equal"
    }
    return "line \(index + 1): \(index < a.count ? a[index] : "nothing") instead of \(index < b.count ? b[index] : "nothing")"
}
