// MARK: - Where a layer stands at a moment

extension StoryLayer {
    /// Its pose at `time` (its item's or story's seconds): each value its keyframes name moves
    /// from keyframe to keyframe along the earlier one's easing, holds its first keyframe's value
    /// before it and its last one's after; a value no keyframe names stays the layer's own.
    public func pose(at time: Double) -> LayerPose {
        guard !keyframes.isEmpty else { return pose }
        var at = pose
        at.x = value(\.x, at: time) ?? pose.x
        at.y = value(\.y, at: time) ?? pose.y
        at.rotation = value(\.rotation, at: time) ?? pose.rotation
        // A spring overshoots (about 20 %): a scale never below 0, an opacity within 0…1.
        at.scale = max(0, value(\.scale, at: time) ?? pose.scale)
        at.opacity = min(1, max(0, value(\.opacity, at: time) ?? pose.opacity))
        return at
    }

    /// One value's track: the keyframes that name it. The easing of a segment is that of the
    /// keyframe it starts at, among those naming the value.
    private func value(_ key: KeyPath<LayerKeyframe, Double?>, at time: Double) -> Double? {
        let named = keyframes.filter { $0[keyPath: key] != nil }
        guard let first = named.first, let last = named.last else { return nil }
        if time <= first.time { return first[keyPath: key] }
        if time >= last.time { return last[keyPath: key] }
        let next = named.firstIndex { $0.time > time }!
        let start = named[next - 1], end = named[next]
        let share = start.easing((time - start.time) / (end.time - start.time))
        let from = start[keyPath: key]!, to = end[keyPath: key]!
        return from + (to - from) * share
    }
}
