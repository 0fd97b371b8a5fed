/// When a decoded picture is the one shown at a media time.
package enum PictureTime {
    /// A picture is on screen at media time `t` when its own time is at most `t` plus this: a
    /// media time reached by adding frame durations, or a frame time less a start time, may fall
    /// a hair short of the picture it lands on (1.9999999999 for 2). The player's choice of
    /// picture (`ItemPlayer.advance`), a shard's seek (`MediaDecoder.seek`) and its forward pass
    /// (`ForwardPass`), and the shard planner's cost of a cut (`ShardCuts`) all use it, so that
    /// they agree on which picture, and so which keyframe, a time needs.
    package static let slack = 1e-9

    /// Whether a picture at `time` is shown by (or before) media time `t`.
    package static func isShown(_ time: Double, by t: Double) -> Bool { time <= t + slack }
}
