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
        var violations: [Violation] = []
        var played: [Int: Int] = [:]        // player → line of its play
        var plays: [Int: TraceEvent] = [:]  // player → its play
        var stopped: [Int: Int] = [:]       // player → line of its stop
        var alive: [Int: String] = [:]      // video player → story
        var aliveAudio: [Int: String] = [:] // audio player → story
        var aliveTiles: [Int: String] = [:] // a room tile's player → story
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            let event: TraceEvent
            do {
                event = try TraceEvent(jsonLine: line)
            } catch {
                violations.append(Violation(line: lineNumber, message: error.message))
                continue
            }
            let kind = event.event, name = kind.rawValue
            // Calls that changed nothing, preloads, a room's speaker changes and gestures are not
            // player events.
            if kind == .ignored || kind == .preload || kind == .speaker || kind == .gesture || kind == .layout { continue }
            guard let player = event.player else {
                violations.append(Violation(line: lineNumber, message: "\(name) without a player id"))
                continue
            }
            let story = event.story
            if kind != .play, let play = plays[player], let line = played[player] {
                violations += identityViolations(of: event, against: play, playedAt: line, line: lineNumber)
            }
            switch kind {
            case .play:
                if let first = played[player] ?? stopped[player] {
                    violations.append(Violation(line: lineNumber, message: "player \(player) reused (first seen at line \(first))"))
                    continue
                }
                played[player] = lineNumber
                plays[player] = event
                // A grid's or stage's tile (and a screen share's picture-in-picture camera) is
                // decoded inside its room, as its sound is: the room is the one story the
                // viewer's bound counts, and its tiles come and go with the page shown.
                if event.media == TraceEvent.tileMedia {
                    aliveTiles[player] = story
                    continue
                }
                if event.media == "audio" {
                    aliveAudio[player] = story
                    if let maxAudio, aliveAudio.count > maxAudio {
                        violations.append(Violation(line: lineNumber, message: audioMessage(aliveAudio.keys.sorted(), plays: plays,
                                                                                            max: maxAudio, at: event.t)))
                    }
                    continue
                }
                alive[player] = story
                if alive.count > maxAlive {
                    let ids = alive.keys.sorted().map { "\($0) (\(alive[$0]!))" }.joined(separator: ", ")
                    violations.append(Violation(line: lineNumber,
                                                message: "\(alive.count) players alive, more than \(maxAlive): \(ids)"))
                }
            case .stop:
                if let earlier = stopped[player] {
                    violations.append(Violation(line: lineNumber, message: "player \(player) stopped again (first stop at line \(earlier))"))
                } else if played[player] == nil && !shard {
                    violations.append(Violation(line: lineNumber, message: "player \(player) stopped but never played"))
                }
                stopped[player] = lineNumber
                alive[player] = nil
                aliveAudio[player] = nil
                aliveTiles[player] = nil
            default:
                if let stop = stopped[player] {
                    violations.append(Violation(line: lineNumber, message: "\(name) for player \(player) after its stop at line \(stop)"))
                } else if played[player] == nil && !shard {
                    violations.append(Violation(line: lineNumber, message: "\(name) for player \(player), which never played"))
                }
            }
        }
        if !shard {
            for (player, story) in alive.merging(aliveAudio, uniquingKeysWith: { a, _ in a }).merging(aliveTiles, uniquingKeysWith: { a, _ in a }).sorted(by: { $0.key < $1.key }) {
                violations.append(Violation(line: played[player] ?? 0,
                                            message: "player \(player) (\(story)) played but never stopped"))
            }
        }
        return inLineOrder(violations)
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
    private static func audioMessage(_ players: [Int], plays: [Int: TraceEvent], max: Int, at t: Double) -> String {
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
    private static func identityViolations(of event: TraceEvent, against play: TraceEvent, playedAt playLine: Int,
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
