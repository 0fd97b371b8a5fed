import Foundation

// MARK: - Which lane each event is drawn on

extension LifecycleTimeline {
    /// The lanes of a trace: one per story, named as the storyboard spells it, and under a room's
    /// story one per participant for its tile players ("panel · ana (tile)"), then one per
    /// participant for its audio-only player ("panel · ana"). A room holds an audio player for
    /// every participant all the time it is on screen, and a grid or stage a tile player for
    /// every tile shown, all at once: on the story's lane their bars would lie on each other and
    /// on the video player's; and `check` counts them apart (`--max-audio`; tiles not at all),
    /// so the picture does too.
    public struct LaneMap: Sendable {
        public let lanes: [String]
        /// The lanes of audio-only players.
        public let audioLanes: Set<String>
        /// The lanes of a room's tile players.
        public let tileLanes: Set<String>
        /// Audio player → its lane.
        let audioPlayers: [Int: String]
        /// Tile player → its lane.
        let tilePlayers: [Int: String]
        /// Every room player → its participant (a video player's failure is its participant's).
        let participants: [Int: String]

        public init(_ events: [TraceEvent]) {
            var stories: [String] = []
            var tileLanes: [String: [String]] = [:], audioLanes: [String: [String]] = [:]
            var audioPlayers: [Int: String] = [:], tilePlayers: [Int: String] = [:], participants: [Int: String] = [:]
            for event in events where event.event != .preload {
                if !stories.contains(event.story) { stories.append(event.story) }
                guard let player = event.player, let participant = event.participant else { continue }
                participants[player] = participant
                switch event.media {
                case "audio":
                    let lane = LaneMap.name(story: event.story, participant: participant)
                    audioPlayers[player] = lane
                    if !(audioLanes[event.story] ?? []).contains(lane) { audioLanes[event.story, default: []].append(lane) }
                case TraceEvent.tileMedia:
                    let lane = LaneMap.tileName(story: event.story, participant: participant)
                    tilePlayers[player] = lane
                    if !(tileLanes[event.story] ?? []).contains(lane) { tileLanes[event.story, default: []].append(lane) }
                default:
                    continue
                }
            }
            lanes = stories.flatMap { [$0] + (tileLanes[$0] ?? []) + (audioLanes[$0] ?? []) }
            self.audioLanes = Set(audioPlayers.values)
            self.tileLanes = Set(tilePlayers.values)
            self.audioPlayers = audioPlayers
            self.tilePlayers = tilePlayers
            self.participants = participants
        }

        /// A participant's audio lane.
        public static func name(story: String, participant: String) -> String { "\(story) · \(participant)" }

        /// A participant's lane of tile players.
        public static func tileName(story: String, participant: String) -> String { "\(story) · \(participant) (tile)" }

        public func isAudio(player: Int) -> Bool { audioPlayers[player] != nil }

        public func isTile(player: Int) -> Bool { tilePlayers[player] != nil }

        /// Whether `lane` is a story's own lane (neither a participant's audio nor its tiles).
        public func isStoryLane(_ lane: String) -> Bool { !audioLanes.contains(lane) && !tileLanes.contains(lane) }

        /// The participant whose player this is, if a room's.
        public func participant(of event: TraceEvent) -> String? {
            event.participant ?? event.player.flatMap { participants[$0] }
        }

        /// An audio or tile player's events go on its participant's lane of that kind, and so
        /// does the failure of a participant's video: a failed participant is marked on its own
        /// (audio) lane. Everything else goes on its story's lane.
        public func lane(of event: TraceEvent) -> String {
            if let player = event.player, let lane = audioPlayers[player] ?? tilePlayers[player] { return lane }
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
