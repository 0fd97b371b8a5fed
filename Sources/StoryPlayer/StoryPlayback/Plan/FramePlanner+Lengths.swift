import StoryLive
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
        var opened: [SourceKey: Probe?] = [:]
        func probe(_ item: StoryItem) -> Probe? {
            let key = SourceKey(source: item.source.identity, isLive: item.isLive)
            if let known = opened[key] { return known }
            var itemLimits = limits
            itemLimits.latency = (item.latency ?? LiveLatency()).over(limits.latency)
            let found: Probe?
            do {
                let live = LiveSources.reading(item.source, isLive: item.isLive)
                let decoder = try MediaDecoder(source: item.source, limits: itemLimits, isLive: item.isLive, live: live)
                found = Probe(facts: MediaFacts(decoder, isLive: item.isLive, live: live), keyframes: item.isLive ? [] : decoder.keyframeTimes)
                decoder.close()
            } catch {
                found = nil
            }
            opened[key] = found
            return found
        }
        // A room's length is its own; its participants are opened when it plays.
        let probes = storyboard.stories.map { $0.items.map { $0.room == nil ? probe($0) : nil } }
        let lengths = zip(storyboard.stories, probes).map { story, probes in
            zip(story.items, probes).map { item, probe in
                ItemLength.of(item, media: probe?.facts, failed: item.room == nil && probe == nil)
            }
        }
        return ItemLengths(lengths: lengths, keyframes: probes.map { $0.map { $0?.keyframes ?? [] } })
    }

    /// What opening one source told.
    private struct Probe {
        var facts: MediaFacts
        var keyframes: [Double]
    }

    private struct SourceKey: Hashable {
        var source: String
        var isLive: Bool
    }
}
