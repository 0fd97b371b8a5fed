import Foundation

// MARK: - Which lane each event is drawn on

extension LifecycleTimeline {
    /// The lanes of a trace: one per story, named as the storyboard spells it, and under a room's
    /// story one per participant for its audio-only player ("panel · ana"). A room holds an audio
    /// player for every participant all the time it is on screen, so on the story's lane their
    /// bars would lie on each other and on the video player's; and `check` counts them apart
    /// (`--max-audio`), so the picture does too.
    public struct LaneMap: Sendable {
        public let lanes: [String]
        /// The lanes of audio-only players.
        public let audioLanes: Set<String>
        /// Audio player → its lane.
        let audioPlayers: [Int: String]
        /// Every room player → its participant (a video player's failure is its participant's).
        let participants: [Int: String]

        public init(_ events: [TraceEvent]) {
            var stories: [String] = []
            var roomLanes: [String: [String]] = [:]
            var audioPlayers: [Int: String] = [:], participants: [Int: String] = [:]
            for event in events where event.event != .preload {
                if !stories.contains(event.story) { stories.append(event.story) }
                guard let player = event.player, let participant = event.participant else { continue }
                participants[player] = participant
                guard event.media == "audio" else { continue }
                let lane = LaneMap.name(story: event.story, participant: participant)
                audioPlayers[player] = lane
                if !(roomLanes[event.story] ?? []).contains(lane) { roomLanes[event.story, default: []].append(lane) }
            }
            lanes = stories.flatMap { [$0] + (roomLanes[$0] ?? []) }
            audioLanes = Set(audioPlayers.values)
            self.audioPlayers = audioPlayers
            self.participants = participants
        }

        /// A participant's audio lane.
        public static func name(story: String, participant: String) -> String { "\(story) · \(participant)" }

        public func isAudio(player: Int) -> Bool { audioPlayers[player] != nil }

        /// The participant whose player this is, if a room's.
        public func participant(of event: TraceEvent) -> String? {
            event.participant ?? event.player.flatMap { participants[$0] }
        }

        /// An audio player's events go on its participant's lane, and so does the failure of a
        /// participant's video: a failed participant is marked on its own lane. Everything else
        /// goes on its story's lane.
        public func lane(of event: TraceEvent) -> String {
            if let player = event.player, let lane = audioPlayers[player] { return lane }
            if event.event == .failed, let participant = participant(of: event) {
                let lane = LaneMap.name(story: event.story, participant: participant)
                if audioLanes.contains(lane) { return lane }
            }
            return event.story
        }
    }

    /// How many players are alive over time, video players or audio-only ones: spans of
    /// (start, end, count) with a count above 0. A room's tile players (`"media": "tile"`) are
    /// neither: they are the room's, as `check` counts them.
    static func aliveSpans(_ events: [TraceEvent], map: LaneMap, audio: Bool, until end: Double) -> [(start: Double, end: Double, count: Int)] {
        var spans: [(start: Double, end: Double, count: Int)] = []
        var alive = 0, since = 0.0
        let tiles = Set(events.filter { $0.event == .play && $0.media == TraceEvent.tileMedia }.compactMap(\.player))
        for event in events where event.event == .play || event.event == .stop {
            guard let player = event.player, !tiles.contains(player), map.isAudio(player: player) == audio else { continue }
            if alive > 0, event.t > since { spans.append((since, event.t, alive)) }
            alive += event.event == .play ? 1 : -1
            since = event.t
        }
        if alive > 0, end > since { spans.append((since, end, alive)) }
        return spans
    }
}
