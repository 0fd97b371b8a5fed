
/// What a render's frame loop carries from frame to frame (`StoryRenderer.drawFrames`), for the
/// render's ending (`StoryRenderer.finish`).
struct FrameLoopProgress {
    /// When each frame is due, and the frames a realtime render was too late to draw.
    var pacing: FramePacing
    /// Frames drawn and handed to the outputs.
    var frames = 0
    /// The time of the last frame the viewer stepped to.
    var endTime = 0.0
    /// The signal that stopped the render, if one did.
    var interrupted: Int32?
    /// A recording's rooms were empty for `--until-empty` seconds: it ended there.
    var emptied = false
    /// Where in the trace the step to a shard's first frame begins: what it records is the
    /// shard's (`LifecycleTrace.keepEvents`).
    var firstStepMark = 0
}
