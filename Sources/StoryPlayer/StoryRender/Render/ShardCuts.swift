import StoryMedia
import StoryModel
import StoryPlayback

/// Shard ranges cut where the clips playing there are cheapest to start: on their keyframes
/// (`render-stories frames --shards N --keyframes`).
///
/// A shard whose first frame falls inside a clip seeks to the keyframe before that frame's
/// picture and decodes forward from it, pictures no frame of it shows (`ShardPlan`,
/// `shard_cost.decoding_forward`). A cut that lands on the playing clips' keyframes decodes
/// nothing forward. So each cut of the even split (`ShardSplit.ranges`) may move a little, to
/// the frame nearby whose playing clips are nearest after a keyframe: at most a second each way
/// and a quarter of a shard, so the shards stay about as long as each other; in whole GOPs when
/// the unit is one (`--whole-seconds`), which then leaves fewer places to choose from.
///
/// The cost of a cut is read from the plan, as `frames` counts the storyboard (`FramePlanner`),
/// and from the keyframes the same probe of each source lists (`ItemLengths.keyframes`): no
/// source is opened twice and nothing is decoded. Any cut gives the same frames; only where the
/// work falls changes.
public enum ShardCuts {
    /// The frame ranges of `storyboard` in at most `shards` shards of whole `unit`s, each cut
    /// moved onto the keyframes where it can be (`moving`). Covers the same frames as
    /// `ShardSplit.ranges`, in as many ranges; a feed, whose stories only a render follows, is
    /// split evenly.
    public static func ranges(_ storyboard: Storyboard, shards: Int, unit: Int = 1,
                              limits: DecodeLimits = DecodeLimits()) throws(RenderError) -> [Range<Int>] {
        guard storyboard.feed == nil else {
            return ShardSplit.ranges(frames: try StoryRenderer.countFrames(storyboard, limits: limits), shards: shards, unit: unit)
        }
        let lengths = ItemLengths.probing(storyboard, limits: StoryRenderer.limits(limits, for: storyboard))
        let frames = StoryRenderer.countFrames(storyboard, lengths: lengths)
        let even = ShardSplit.ranges(frames: frames, shards: shards, unit: unit)
        guard even.count > 1 else { return even }
        let steps = window(size: even[0].count, unit: unit, fps: storyboard.canvas.fps)
        guard steps > 0 else { return even }
        let candidates = Set(even.dropFirst().flatMap { range in
            (-steps...steps).map { range.lowerBound + $0 * unit }.filter { $0 > 0 && $0 < frames }
        })
        var planner = FramePlanner(storyboard: storyboard, lengths: lengths)
        var costs: [Int: Double] = [:]
        for frame in 0...(candidates.max() ?? 0) {
            let plan = planner.next()
            if candidates.contains(frame) { costs[frame] = forwardSeconds(plan, keyframes: lengths) }
        }
        return moving(even, unit: unit, steps: steps, frames: frames) { costs[$0] ?? 0 }
    }

    // MARK: - Choosing

    /// How many `unit`s a cut may move each way: a second's worth, and no more than a quarter
    /// of a shard of `size` frames, so that no two cuts can meet.
    static func window(size: Int, unit: Int, fps: Double) -> Int {
        min(ShardSplit.gop(fps: fps) / unit, size / (4 * unit))
    }

    /// `even`'s cuts, each moved by up to `steps` `unit`s to where `cost` is lowest: the nearest
    /// such frame to the even cut, the earlier one of two as near. The first range still starts
    /// at 0 and the last ends at `frames`; no range comes out empty.
    static func moving(_ even: [Range<Int>], unit: Int, steps: Int, frames: Int, cost: (Int) -> Double) -> [Range<Int>] {
        var cuts = [0]
        for range in even.dropFirst() {
            let planned = range.lowerBound
            let choices = (-steps...steps).map { planned + $0 * unit }.filter { $0 > cuts[cuts.count - 1] && $0 < frames }
            let best = choices.min { a, b in
                let (ca, cb) = (cost(a), cost(b))
                if abs(ca - cb) > 1e-9 { return ca < cb }
                return (abs(a - planned), a) < (abs(b - planned), b)
            }
            cuts.append(best ?? planned)
        }
        cuts.append(frames)
        return zip(cuts, cuts.dropFirst()).map { $0..<$1 }
    }

    /// Seconds of video the players alive at `plan`'s frame decode before the picture each
    /// shows, had a shard begun there: from the keyframe its seek lands on, the newest shown by
    /// its media time (`PictureTime`). Unknown keyframes cost nothing: every
    /// cut is then alike for that clip.
    static func forwardSeconds(_ plan: FramePlan, keyframes: ItemLengths) -> Double {
        plan.shown.filter(\.plays).reduce(0) { sum, shown in
            let times = keyframes.keyframes(story: shown.story, item: shown.item)
            guard shown.mediaTime > 0, let last = times.last(where: { PictureTime.isShown($0, by: shown.mediaTime) }) else { return sum }
            return sum + (shown.mediaTime - last)
        }
    }
}
