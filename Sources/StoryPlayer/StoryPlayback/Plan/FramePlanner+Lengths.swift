import StoryMedia
import StoryModel

/// Each item's length on the timeline, story by story, item by item: what the planner ends items
/// by (`FramePlanner`).
public struct ItemLengths: Sendable, Equatable {
    /// Seconds, or nil for an item that plays until something else moves the viewer on.
    public var lengths: [[Double?]]
    /// Each item's keyframes in media seconds, story by story, item by item, as its container's
    /// index lists them (`MediaDecoder.keyframeTimes`): where a shard's player that starts mid-item
    /// seeks to before decoding forward (`ShardCuts`). Empty when unknown (a photo, a live
    /// stream, a container without an index), and for lengths made by hand.
    public var keyframes: [[[Double]]]

    public init(lengths: [[Double?]], keyframes: [[[Double]]] = []) {
        self.lengths = lengths
        self.keyframes = keyframes
    }

    /// Item `item` of story `story`'s keyframes; empty when unknown.
    public func keyframes(story: Int, item: Int) -> [Double] {
        keyframes.indices.contains(story) && keyframes[story].indices.contains(item) ? keyframes[story][item] : []
    }

    /// The lengths a render's players find: each source opened once, as a player opens it, to
    /// learn whether it is a photo and how long it lasts (`MediaFacts`), and closed at once; a
    /// source that cannot be opened lasts as a failed item does. Nothing is decoded but what
    /// opening decodes. The same opening gives each recorded video's keyframes.
    public static func probing(_ storyboard: Storyboard, limits: DecodeLimits) -> ItemLengths {
        var opened: [SourceKey: (facts: MediaFacts, keyframes: [Double])?] = [:]
        func facts(of item: StoryItem) -> (facts: MediaFacts, keyframes: [Double])? {
            let key = SourceKey(source: item.source.description, isLive: item.isLive)
            if let known = opened[key] { return known }
            var itemLimits = limits
            itemLimits.latency = (item.latency ?? LiveLatency()).over(limits.latency)
            let found: (facts: MediaFacts, keyframes: [Double])?
            do {
                let decoder = try MediaDecoder(source: item.source, limits: itemLimits, isLive: item.isLive)
                found = (MediaFacts(decoder, isLive: item.isLive), item.isLive ? [] : decoder.keyframeTimes)
                decoder.close()
            } catch {
                found = nil
            }
            opened[key] = found
            return found
        }
        var keyframes: [[[Double]]] = []
        let lengths = storyboard.stories.map { story in
            var storyKeyframes: [[Double]] = []
            defer { keyframes.append(storyKeyframes) }
            return story.items.map { item in
                // A room's length is its own; its participants are opened when it plays.
                guard item.room == nil else {
                    storyKeyframes.append([])
                    return ItemLength.of(item, media: nil, failed: false)
                }
                let media = facts(of: item)
                storyKeyframes.append(media?.keyframes ?? [])
                return ItemLength.of(item, media: media?.facts, failed: media == nil)
            }
        }
        return ItemLengths(lengths: lengths, keyframes: keyframes)
    }

    private struct SourceKey: Hashable {
        var source: String
        var isLive: Bool
    }
}
