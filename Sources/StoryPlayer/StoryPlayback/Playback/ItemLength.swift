import StoryModel

/// How long an item lasts on the timeline, from what is known of it. The one rule both the
/// players end items by and the planner (`FramePlanner`) counts frames by, so the two agree.
enum ItemLength {
    /// A video's media duration or its `duration`, whichever is shorter (and shorter still when its
    /// data ran out first, `dataEnd`); a source of sound only's the same, without `dataEnd`; a photo's (or a failed item's) `duration`, default 5 s; a
    /// live item's `duration`, default 10 s; a room's `duration`. Nil while a video's length is
    /// unknown: before it opened, with no `duration`.
    static func of(_ item: StoryItem, media: MediaFacts?, failed: Bool, dataEnd: Double? = nil) -> Double? {
        if item.room != nil { return item.duration ?? Room.defaultDuration }
        if failed { return item.duration ?? StoryItem.defaultPhotoDuration }
        if item.isLive {
            // A finished playlist (VOD) played as live lasts as long as it is.
            if let whole = media?.duration { return min(whole, item.duration ?? .infinity) }
            return item.duration ?? StoryItem.defaultLiveDuration
        }
        guard let media else { return item.duration }
        if media.isStill { return item.duration ?? StoryItem.defaultPhotoDuration }
        // Sound lasts as long as it is, whatever the one picture shown over it (its data ends
        // with that picture).
        if media.isSoundOnly {
            return media.duration.map { min($0, item.duration ?? .infinity) } ?? item.duration ?? StoryItem.defaultPhotoDuration
        }
        let declared = media.duration.map { min($0, item.duration ?? .infinity) } ?? item.duration
        return [declared, dataEnd].compactMap { $0 }.min()
    }
}
