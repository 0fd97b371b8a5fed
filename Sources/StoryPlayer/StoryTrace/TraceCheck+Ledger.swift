import Foundation
import StoryModel

// MARK: - The players seen so far, line by line

extension TraceCheck {
    /// What `check` knows after each line: which players played, stopped and are alive, and
    /// the violations found so far, in the order found.
    struct Ledger {
        let maxAlive: Int
        let maxAudio: Int?
        let shard: Bool
        private(set) var violations: [Violation] = []
        private var played: [Int: Int] = [:]        // player → line of its play
        private var plays: [Int: TraceEvent] = [:]  // player → its play
        private var stopped: [Int: Int] = [:]       // player → line of its stop
        private var alive: [Int: String] = [:]      // video player → story
        private var aliveAudio: [Int: String] = [:] // audio player → story
        private var aliveTiles: [Int: String] = [:] // a room tile's player → story

        init(maxAlive: Int, maxAudio: Int?, shard: Bool) {
            self.maxAlive = maxAlive
            self.maxAudio = maxAudio
            self.shard = shard
        }

        /// One line of the trace, not blank.
        mutating func take(_ line: Substring, at lineNumber: Int) {
            let event: TraceEvent
            do {
                event = try TraceEvent(jsonLine: line)
            } catch {
                violations.append(Violation(line: lineNumber, message: error.message))
                return
            }
            let kind = event.event
            // Calls that changed nothing, preloads, a room's speaker changes, gestures and a
            // recording's outputs are not player events.
            if kind == .ignored || kind == .preload || kind == .speaker || kind == .gesture || kind == .layout || kind.isOutputEvent { return }
            guard let player = event.player else {
                violations.append(Violation(line: lineNumber, message: "\(kind.rawValue) without a player id"))
                return
            }
            if kind != .play, let play = plays[player], let line = played[player] {
                violations += identityViolations(of: event, against: play, playedAt: line, line: lineNumber)
            }
            switch kind {
            case .play: play(event, player: player, at: lineNumber)
            case .stop: stop(player, at: lineNumber)
            default: other(event, player: player, at: lineNumber)
            }
        }

        private mutating func play(_ event: TraceEvent, player: Int, at lineNumber: Int) {
            if let first = played[player] ?? stopped[player] {
                violations.append(Violation(line: lineNumber, message: "player \(player) reused (first seen at line \(first))"))
                return
            }
            played[player] = lineNumber
            plays[player] = event
            let story = event.story
            // A grid's or stage's tile (and a screen share's picture-in-picture camera) is
            // decoded inside its room, as its sound is: the room is the one story the
            // viewer's bound counts, and its tiles come and go with the page shown.
            if event.media == TraceEvent.tileMedia {
                aliveTiles[player] = story
                return
            }
            if event.media == "audio" {
                aliveAudio[player] = story
                if let maxAudio, aliveAudio.count > maxAudio {
                    violations.append(Violation(line: lineNumber, message: audioMessage(aliveAudio.keys.sorted(), plays: plays,
                                                                                        max: maxAudio, at: event.t)))
                }
                return
            }
            alive[player] = story
            if alive.count > maxAlive {
                let ids = alive.keys.sorted().map { "\($0) (\(alive[$0]!))" }.joined(separator: ", ")
                violations.append(Violation(line: lineNumber,
                                            message: "\(alive.count) players alive, more than \(maxAlive): \(ids)"))
            }
        }

        private mutating func stop(_ player: Int, at lineNumber: Int) {
            if let earlier = stopped[player] {
                violations.append(Violation(line: lineNumber, message: "player \(player) stopped again (first stop at line \(earlier))"))
            } else if played[player] == nil && !shard {
                violations.append(Violation(line: lineNumber, message: "player \(player) stopped but never played"))
            }
            stopped[player] = lineNumber
            alive[player] = nil
            aliveAudio[player] = nil
            aliveTiles[player] = nil
        }

        /// Any other event of a player: after its play, before its stop.
        private mutating func other(_ event: TraceEvent, player: Int, at lineNumber: Int) {
            let name = event.event.rawValue
            if let stop = stopped[player] {
                violations.append(Violation(line: lineNumber, message: "\(name) for player \(player) after its stop at line \(stop)"))
            } else if played[player] == nil && !shard {
                violations.append(Violation(line: lineNumber, message: "\(name) for player \(player), which never played"))
            }
        }

        /// At the end of a whole render's trace: every player still alive was never stopped.
        mutating func noteNeverStopped() {
            let still = alive.merging(aliveAudio, uniquingKeysWith: { a, _ in a }).merging(aliveTiles, uniquingKeysWith: { a, _ in a })
            for (player, story) in still.sorted(by: { $0.key < $1.key }) {
                violations.append(Violation(line: played[player] ?? 0,
                                            message: "player \(player) (\(story)) played but never stopped"))
            }
        }
    }
}
