import Compositor
import StoryBase
import StoryMedia
import StoryModel
import StoryTrace

/// What `summary.json` says about a render.
public struct RenderSummary: Sendable {
    public struct StoryFigures: Sendable {
        public var id: String
        public var plays: Int
        public var failures: Int
        public var errors: [String]
        /// Its live plays' figures together: offsets the worst play's, rebuffers and drops summed.
        public var live: LivePlaybackFigures?
    }

    /// A room participant whose source failed: the room went on without it, so its story is not
    /// a failed story.
    public struct ParticipantFailure: Sendable, Equatable {
        public var story: String
        public var participant: String
        public var error: String
    }

    public var frames: Int
    public var wallSeconds: Double
    /// The most of the viewer's story players alive at once (`peak_alive_players`): what
    /// create-on-play / drop-on-stop bounds (at most two, mid-turn). A room counts here through
    /// its large video player only.
    public var peakAlivePlayers: Int
    /// The most of rooms' tile players alive at once (`peak_tile_players`): a grid's or stage's
    /// tiles and a screen share's picture-in-picture camera, decoded inside their room and
    /// bounded by its page, not by the viewer; 0 without rooms laid out in tiles.
    public var peakTilePlayers = 0
    public var stories: [StoryFigures]
    /// Room participants whose source failed, in trace order (`failed_participants`).
    public var failedParticipants: [ParticipantFailure] = []
    /// Rooms' tile moves (`tile_moves`): participants who stayed but changed tile, summed over
    /// the `layout` events' `moved`; nil when no room was laid out.
    public var tileMoves: Int?
    public var notices: [String]
    /// CPU seconds per pipeline stage over the whole render.
    public var stageSeconds: [PipelineStage: Double]
    public var cores: Int
    public var clock: PlaybackClock = .virtual
    /// Frames the realtime clock skipped because rendering fell behind.
    public var lateFrames: [Int] = []
    /// When frame 0 was due, in seconds since 1970 (realtime clock only).
    public var clockStartedAt: Double?
    /// Frames of the timeline this render covered, including those a shard passed over; for a
    /// shard, the whole render's frames (`timeline_frames`), so a merge can tell a shard is missing.
    public var timelineFrames = 0
    /// Faces that needed a poster not loaded yet, and showed the background instead.
    public var posterMisses = 0
    /// Feed pages loaded, for a paged feed.
    public var feedPages: Int?
    /// Frames per second of the timeline (frame n shows n / fps): what a reader of the folder
    /// needs to turn trace times into frame numbers (the report page does).
    public var timelineFPS: Double?
    /// The render stopped early at a signal (SIGINT, SIGTERM); `frames` says how far it got.
    public var interrupted = false
    /// The frames a shard rendered (`--frames A..B`); nil for a whole render.
    public var frameRange: Range<Int>?
    /// What a shard's frames were drawn from (`render_of`, written with `frame_range`): the
    /// storyboard text's digest and the drawing options, so that `merge` refuses
    /// shards of different renders by name.
    public var renderOf: [(key: String, value: String)] = []
    /// Time-to-first-frame spans of every play that showed a picture, per story id.
    public var spans: [String: [FirstFrameSpans]] = [:]
    /// What `--loudness` measured and did to the MP4's sound.
    public var loudness: LoudnessFigures?
    /// A shard's cost of reaching its first frame (`shard_cost`); nil for a whole render.
    public var shardCost: ShardCost?
    /// A recording's running figures (`record`).
    public var record: RecordFigures?

    /// Mean CPU milliseconds per frame of each stage.
    public var stageMilliseconds: [PipelineStage: Double] {
        stageSeconds.mapValues { frames > 0 ? 1000 * $0 / Double(frames) : 0 }
    }

    /// Wall time over the ideal (all stages' CPU time spread over every core); 1.0 means the
    /// cores never waited.
    public var pipelineEfficiency: Double {
        let cpu = stageSeconds.values.reduce(0, +)
        return cpu > 0 ? wallSeconds / (cpu / Double(cores)) : 0
    }

    /// CPU time of everything but PNG encoding, over PNG encoding's.
    public var nonEncodeShare: Double {
        let encode = stageSeconds[.encode] ?? 0
        let rest = stageSeconds.filter { $0.key != .encode }.values.reduce(0, +)
        return encode > 0 ? rest / encode : 0
    }

    /// The players alive at most, as the CLI's last line says it: "peak 2 players alive"; with
    /// rooms laid out in tiles, the viewer's story players and the rooms' tile players apart
    /// ("peak 0 story players and 4 room tile players alive"), since a grid's tiles are not the
    /// viewer's players and a bare "peak 0" for a grid of seven read as nothing playing.
    public var peakPlayersPhrase: String {
        func players(_ count: Int) -> String { count == 1 ? "player" : "players" }
        guard peakTilePlayers > 0 else { return "peak \(peakAlivePlayers) \(players(peakAlivePlayers)) alive" }
        return "peak \(peakAlivePlayers) story \(players(peakAlivePlayers)) and \(peakTilePlayers) room tile "
            + "\(players(peakTilePlayers)) alive"
    }

    public var framesPerSecond: Double { wallSeconds > 0 ? Double(frames) / wallSeconds : 0 }
    public var failedStories: [StoryFigures] { stories.filter { $0.failures > 0 } }
    /// A story or a room participant failed: what `--strict` turns into exit code 3.
    public var hasFailures: Bool { !failedStories.isEmpty || !failedParticipants.isEmpty }

    /// `declaredStories`: how many of `stories` the storyboard lists (the rest came from feed
    /// pages): a failed item of those is named by its JSON path.
    init(frames: Int, wallSeconds: Double, stories: [Story], declaredStories: Int, trace: LifecycleTrace, notices: [String],
         stageSeconds: [PipelineStage: Double], cores: Int) {
        self.init(frames: frames, wallSeconds: wallSeconds, storyIDs: stories.map(\.id),
                  feedStories: Set(stories.dropFirst(declaredStories).map(\.id)),
                  trace: trace, notices: notices, stageSeconds: stageSeconds, cores: cores)
    }

    /// `feedStories`: the stories a feed page brought, which have no JSON path in the storyboard.
    init(frames: Int, wallSeconds: Double, storyIDs: [String], feedStories: Set<String> = [], trace: LifecycleTrace, notices: [String],
         stageSeconds: [PipelineStage: Double], cores: Int) {
        self.frames = frames
        self.stageSeconds = stageSeconds
        self.cores = cores
        self.wallSeconds = wallSeconds
        self.peakAlivePlayers = trace.peakAlive
        self.peakTilePlayers = trace.peakTiles
        self.notices = notices
        for event in trace.events where event.event == .firstFrame {
            if let spans = event.spans { self.spans[event.story, default: []].append(spans) }
        }
        // A participant's failure is the room's business, not its story's: the room goes on.
        // Its players' `play` events name it (a shard's trace may lack the play; then the
        // failure's own `participant` does).
        var participants: [Int: String] = [:]
        for event in trace.events where event.event == .play {
            if let player = event.player, let participant = event.participant { participants[player] = participant }
        }
        func participant(_ event: TraceEvent) -> String? { event.participant ?? event.player.flatMap { participants[$0] } }
        // Once per participant: a source that breaks fails both its video player and its sound
        // thread, one cause, and the first failure says it.
        var named = Set<String>()
        failedParticipants = trace.events.filter { $0.event == .failed && storyIDs.contains($0.story) }.compactMap { event in
            guard let name = participant(event), named.insert(event.story + "\u{0}" + name).inserted else { return nil }
            return ParticipantFailure(story: event.story, participant: name, error: event.error ?? "failed")
        }
        let layouts = trace.events.filter { $0.event == .layout && storyIDs.contains($0.story) }
        tileMoves = layouts.isEmpty ? nil : layouts.reduce(0) { $0 + ($1.moved?.count ?? 0) }
        self.stories = storyIDs.enumerated().map { index, id in
            let events = trace.events.filter { $0.story == id }
            let failed = events.filter { $0.event == .failed && participant($0) == nil }
            // Named by its JSON path, as the storyboard's own errors are.
            return StoryFigures(id: id, plays: events.filter { $0.event == .play }.count,
                                failures: failed.count,
                                errors: failed.map { "\(feedStories.contains(id) ? "" : "stories[\(index)].")items[\($0.item ?? 0)]: \($0.error ?? "failed")" },
                                live: RenderSummary.combined(events.compactMap(\.live)))
        }
    }

    /// Says which stories played without a picture from their source: a live one of sound only,
    /// or one left before its first picture came. Not failures (the story showed its poster or
    /// loading card, and a sound-only one is heard), but a story that never shows a picture is
    /// reported, not left to a `first_frame` count of zero. Only a story's own players count
    /// (a room's participants have their avatars), and a failed story says why already. Only
    /// for a whole render (or a merge of every shard), so called once `frameRange` is set: a
    /// shard's trace is part of the story, and its edge stops a play begun there before its
    /// first picture.
    mutating func noteStoriesWithoutAPicture(trace: LifecycleTrace) {
        guard frameRange == nil else { return }
        for id in stories.map(\.id) {
            let events = trace.events.filter { $0.story == id && $0.participant == nil && $0.media == nil }
            let plays = events.filter { $0.event == .play }.count
            let stops = events.filter { $0.event == .stop }
            guard plays > 0, !stops.isEmpty, !events.contains(where: { $0.event == .failed }),
                  stops.allSatisfy({ ($0.pictures ?? 0) == 0 }) else { continue }
            let line = "story \(id): no picture came from its source in \(plays) play\(plays == 1 ? "" : "s") "
                + "(a source of sound only, or left before its first picture): it showed its poster or loading card"
            if !notices.contains(line) { notices.append(line) }
        }
    }

    /// A story's live plays as one: the worst play's offsets (the largest p50, p95 and max), the
    /// evidence they came from, rebuffers and drops summed.
    static func combined(_ plays: [LivePlaybackFigures]) -> LivePlaybackFigures? {
        guard !plays.isEmpty else { return nil }
        let offsets = plays.compactMap(\.offsetMs)
        let worst = offsets.isEmpty ? nil : OffsetStatistics(p50: offsets.map(\.p50).max()!, p95: offsets.map(\.p95).max()!,
                                                             max: offsets.map(\.max).max()!)
        var figures = LivePlaybackFigures(offsetMs: worst, offsetFrom: plays.compactMap(\.offsetFrom).first,
                                          rebuffers: plays.map(\.rebuffers).reduce(0, +), dropped: plays.map(\.dropped).reduce(0, +))
        figures.series = plays.flatMap(\.series).sorted { $0.t < $1.t }
        return figures
    }

    /// A story's live figures as JSON fields (with a leading comma), or nothing.
    static func liveFields(_ live: LivePlaybackFigures?) -> String {
        guard let live else { return "" }
        var fields = ""
        if let offset = live.offsetMs {
            fields += ", \"live_offset_ms\": {\"p50\": \(JSONText.number(offset.p50)), \"p95\": \(JSONText.number(offset.p95)), \"max\": \(JSONText.number(offset.max))}"
        }
        if let from = live.offsetFrom { fields += ", \"live_offset_from\": \(JSONText.string(from))" }
        fields += ", \"rebuffers\": \(live.rebuffers), \"dropped\": \(live.dropped)"
        if !live.series.isEmpty { fields += ", \"live_offset_series\": \(OffsetSample.json(live.series))" }
        return fields
    }

    /// count, p50, p95 and max of some spans, as JSON.
    static func statistics(_ values: [Double]) -> String {
        guard !values.isEmpty else { return "{\"count\": 0}" }
        let sorted = values.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded()))] }
        return "{\"count\": \(sorted.count), \"p50\": \(JSONText.number(percentile(0.5))), "
            + "\"p95\": \(JSONText.number(percentile(0.95))), \"max\": \(JSONText.number(sorted.last!))}"
    }

    /// The three spans' statistics for a set of plays.
    static func spanStatistics(_ spans: [FirstFrameSpans]) -> String {
        "{\"open_ms\": \(statistics(spans.map(\.openMs))), \"first_packet_ms\": \(statistics(spans.map(\.firstPacketMs))), "
            + "\"first_frame_ms\": \(statistics(spans.map(\.firstFrameMs)))}"
    }

    /// A shard's `shard_cost`: its opening, seeking and decoding forward, each a count and CPU
    /// seconds, and the pictures the decoding forward was spared.
    static func shardCostJSON(_ cost: ShardCost) -> String {
        func figure(_ name: String, _ figure: ShardCost.Figure) -> String {
            "{\"\(name)\": \(figure.count), \"cpu_seconds\": \(JSONText.number(figure.cpuSeconds))}"
        }
        return "{\"opening\": \(figure("sources", cost.opening)), \"seeking\": \(figure("seeks", cost.seeking)), "
            + "\"decoding_forward\": \(figure("pictures", cost.decodingForward)), "
            + "\"droppable_packets\": \(cost.droppablePackets)}"
    }

    /// `summary.json`, keys in a fixed order.
    public var json: String {
        let storyLines = stories.map { story in
            "    {\"id\": \(JSONText.string(story.id)), \"plays\": \(story.plays), \"failures\": \(story.failures), "
                + "\"errors\": [\(story.errors.map(JSONText.string).joined(separator: ", "))], "
                + "\"first_frame\": \(RenderSummary.spanStatistics(spans[story.id] ?? []))\(RenderSummary.liveFields(story.live))}"
        }
        let failed = failedStories.map { JSONText.string($0.id) }.joined(separator: ", ")
        let failedParticipantFields = failedParticipants.map {
            "{\"story\": \(JSONText.string($0.story)), \"participant\": \(JSONText.string($0.participant)), \"error\": \(JSONText.string($0.error))}"
        }
        let stageFields = PipelineStage.allCases.map { "\"\($0.rawValue)\": \(JSONText.number(stageMilliseconds[$0] ?? 0))" }
            + ["\"wall\": \(JSONText.number(frames > 0 ? 1000 * wallSeconds / Double(frames) : 0))"]
        return """
        {
          "frames": \(frames),\(interrupted ? "\n  \"interrupted\": true," : "")
          "wall_seconds": \(JSONText.number(wallSeconds)),
          "fps": \(JSONText.number(framesPerSecond)),
          "peak_alive_players": \(peakAlivePlayers),
          "peak_tile_players": \(peakTilePlayers),
          "stages_ms": {\(stageFields.joined(separator: ", "))},
          "cores": \(cores),
          "pipeline_efficiency": \(JSONText.number(pipelineEfficiency)),
          "non_encode_share": \(JSONText.number(nonEncodeShare)),
          "clock": \(JSONText.string(clock.rawValue)),\(timelineFPS.map { "\n  \"timeline_fps\": \(JSONText.number($0))," } ?? "")\(frameRange.map { "\n  \"frame_range\": [\($0.lowerBound), \($0.upperBound)],\n  \"timeline_frames\": \(timelineFrames)," } ?? "")\(frameRange != nil && !renderOf.isEmpty ? "\n  \"render_of\": {\(renderOf.map { "\(JSONText.string($0.key)): \(JSONText.string($0.value))" }.joined(separator: ", "))}," : "")\(shardCost.map { "\n  \"shard_cost\": \(RenderSummary.shardCostJSON($0))," } ?? "")
          "poster_misses": \(posterMisses),\(feedPages.map { "\n  \"feed_pages\": \($0)," } ?? "")
          "late_frames": [\(lateFrames.map(String.init).joined(separator: ", "))],\(loudness.map { "\n  \"loudness\": \($0.json)," } ?? "")\(clockStartedAt.map { "\n  \"clock_started_at\": \(JSONText.number($0))," } ?? "")
          "first_frame": \(RenderSummary.spanStatistics(spans.values.flatMap { $0 })),
          "failed_stories": [\(failed)],
          "failed_participants": [\(failedParticipantFields.joined(separator: ", "))],\(tileMoves.map { "\n  \"tile_moves\": \($0)," } ?? "")
          "stories": [
        \(storyLines.joined(separator: ",\n"))
          ],
          "notices": [\(notices.map(JSONText.string).joined(separator: ", "))]\(record.map { ",\n  \"record\": \($0.json)" } ?? "")
        }

        """
    }
}
