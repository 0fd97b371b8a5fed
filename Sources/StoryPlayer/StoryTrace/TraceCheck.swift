import Foundation
import StoryModel

/// Verifies the lifecycle invariants of a trace (`render-stories check`):
///
/// - player ids are never reused;
/// - every `play` has exactly one `stop`, and a player has no events after its stop;
/// - a player's events name the story, item and participant its `play` named, and none comes
///   before its `play` on the timeline;
/// - at most `maxAlive` players that decode video are alive at any moment, and at most
///   `maxAudio` (when given) of a room's audio-only players (`"media": "audio"`).
public enum TraceCheck {
    public struct Violation: Sendable, Equatable, CustomStringConvertible {
        /// 1-based line number in the trace, or 0 for the trace as a whole.
        public let line: Int
        public let message: String
        public var description: String { line > 0 ? "line \(line): \(message)" : message }
    }

    /// Checks JSON Lines text. A shard's trace (`shard: true`) may begin with players already
    /// alive and end with players still alive; everything else holds as for a whole render.
    public static func check(_ text: String, maxAlive: Int = 2, maxAudio: Int? = nil, shard: Bool = false) -> [Violation] {
        var ledger = Ledger(maxAlive: maxAlive, maxAudio: maxAudio, shard: shard)
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            ledger.take(line, at: lineNumber)
        }
        if !shard { ledger.noteNeverStopped() }
        return inLineOrder(ledger.violations)
    }

    /// In the trace's line order (a play never stopped is found at the end, named by its play's
    /// line), those of the trace as a whole (line 0) last; each line's in the order found.
    private static func inLineOrder(_ violations: [Violation]) -> [Violation] {
        violations.enumerated().sorted { a, b in
            let (lineA, lineB) = (a.element.line == 0 ? Int.max : a.element.line, b.element.line == 0 ? Int.max : b.element.line)
            return (lineA, a.offset) < (lineB, b.offset)
        }.map(\.element)
    }

    /// Too many of a room's sound players at once: when, and whose (each participant with its
    /// player and story), so the reader knows which participants to look at without the trace:
    /// "3 audio players alive at t=1.2 s, more than 2: ana (player 4, panel), ben (player 5,
    /// panel), cy (player 6, panel)".
    static func audioMessage(_ players: [Int], plays: [Int: TraceEvent], max: Int, at t: Double) -> String {
        let named = players.map { player in
            let play = plays[player]
            return "\(play?.participant ?? "an unnamed participant") (player \(player), \(play?.story ?? "?"))"
        }
        return "\(players.count) audio players alive at t=\(ObjectReader.format(t)) s, more than \(max): "
            + named.joined(separator: ", ")
    }

    /// A player plays one item of one story (or one participant), from its `play` on: an event
    /// that names another, or comes before it on the timeline, is not that player's. Found by
    /// an audit: a hand-edited `stop` naming another story, or timed before its `play`, passed.
    static func identityViolations(of event: TraceEvent, against play: TraceEvent, playedAt playLine: Int,
                                           line: Int) -> [Violation] {
        let name = event.event.rawValue, player = event.player ?? 0
        var violations: [Violation] = []
        if event.story != play.story {
            violations.append(Violation(line: line, message: "\(name) for player \(player) names story \(event.story), "
                                        + "its play at line \(playLine) story \(play.story)"))
        }
        if let item = event.item, let played = play.item, item != played {
            violations.append(Violation(line: line, message: "\(name) for player \(player) names item \(item), "
                                        + "its play at line \(playLine) item \(played)"))
        }
        if event.participant != play.participant {
            violations.append(Violation(line: line, message: "\(name) for player \(player) names participant "
                                        + "\(event.participant ?? "none"), its play at line \(playLine) \(play.participant ?? "none")"))
        }
        if event.t < play.t - 1e-9 {
            violations.append(Violation(line: line, message: "\(name) for player \(player) at t=\(event.t), "
                                        + "before its play at t=\(play.t) (line \(playLine))"))
        }
        return violations
    }
}
