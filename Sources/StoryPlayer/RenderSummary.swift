/// What `summary.json` says about a render.
public struct RenderSummary: Sendable {
    public struct StoryFigures: Sendable {
        public var id: String
        public var plays: Int
        public var failures: Int
        public var errors: [String]
    }

    public var frames: Int
    public var wallSeconds: Double
    public var peakAlivePlayers: Int
    public var stories: [StoryFigures]
    public var notices: [String]

    public var framesPerSecond: Double { wallSeconds > 0 ? Double(frames) / wallSeconds : 0 }
    public var failedStories: [StoryFigures] { stories.filter { $0.failures > 0 } }

    init(frames: Int, wallSeconds: Double, stories: [Story], trace: LifecycleTrace, notices: [String]) {
        self.frames = frames
        self.wallSeconds = wallSeconds
        self.peakAlivePlayers = trace.peakAlive
        self.notices = notices
        self.stories = stories.map { story in
            let events = trace.events.filter { $0.story == story.id }
            let failed = events.filter { $0.event == .failed }
            return StoryFigures(id: story.id, plays: events.filter { $0.event == .play }.count,
                                failures: failed.count,
                                errors: failed.map { "item \($0.item ?? 0): \($0.error ?? "failed")" })
        }
    }

    /// `summary.json`, keys in a fixed order.
    public var json: String {
        let storyLines = stories.map { story in
            "    {\"id\": \(JSONText.string(story.id)), \"plays\": \(story.plays), \"failures\": \(story.failures), "
                + "\"errors\": [\(story.errors.map(JSONText.string).joined(separator: ", "))]}"
        }
        let failed = failedStories.map { JSONText.string($0.id) }.joined(separator: ", ")
        return """
        {
          "frames": \(frames),
          "wall_seconds": \(JSONText.number(wallSeconds)),
          "fps": \(JSONText.number(framesPerSecond)),
          "peak_alive_players": \(peakAlivePlayers),
          "failed_stories": [\(failed)],
          "stories": [
        \(storyLines.joined(separator: ",\n"))
          ],
          "notices": [\(notices.map(JSONText.string).joined(separator: ", "))]
        }

        """
    }
}
