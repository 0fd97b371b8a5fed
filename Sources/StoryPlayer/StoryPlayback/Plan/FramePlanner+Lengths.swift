import StoryMedia
import StoryModel

/// Each item's length on the timeline, story by story, item by item: what the planner ends items
/// by (`FramePlanner`).
public struct ItemLengths: Sendable, Equatable {
    /// Seconds, or nil for an item that plays until something else moves the viewer on.
    public var lengths: [[Double?]]

    public init(lengths: [[Double?]]) {
        self.lengths = lengths
    }

    /// The lengths a render's players find: each source opened once, as a player opens it, to
    /// learn whether it is a photo and how long it lasts (`MediaFacts`), and closed at once; a
    /// source that cannot be opened lasts as a failed item does. Nothing is decoded but what
    /// opening decodes.
    public static func probing(_ storyboard: Storyboard, limits: DecodeLimits) -> ItemLengths {
        var opened: [SourceKey: MediaFacts?] = [:]
        func facts(of item: StoryItem) -> MediaFacts? {
            let key = SourceKey(source: item.source.description, isLive: item.isLive)
            if let known = opened[key] { return known }
            var itemLimits = limits
            itemLimits.latency = (item.latency ?? LiveLatency()).over(limits.latency)
            let found: MediaFacts?
            do {
                let decoder = try MediaDecoder(source: item.source, limits: itemLimits, isLive: item.isLive)
                found = MediaFacts(decoder, isLive: item.isLive)
                decoder.close()
            } catch {
                found = nil
            }
            opened[key] = found
            return found
        }
        return ItemLengths(lengths: storyboard.stories.map { story in
            story.items.map { item in
                // A room's length is its own; its participants are opened when it plays.
                guard item.room == nil else { return ItemLength.of(item, media: nil, failed: false) }
                let media = facts(of: item)
                return ItemLength.of(item, media: media, failed: media == nil)
            }
        })
    }

    private struct SourceKey: Hashable {
        var source: String
        var isLive: Bool
    }
}
