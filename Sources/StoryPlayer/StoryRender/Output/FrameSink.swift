import Compositor
import StoryTrace

/// One output of a render: what it does with each frame drawn, and what it writes when the
/// render ends. The render loop knows outputs only through this: a new output is one type that
/// conforms, listed in `StoryRenderer.sinks()`.
///
/// Each step has a default that does nothing, so an output implements only what it needs: the
/// PNG frames and the MP4 take frames; the trace, the contact sheet, the timeline and the report
/// are written at the end from what the render holds in memory.
protocol FrameSink {
    /// Frame `frame.index`, just drawn. Called in frame order, for drawn frames only.
    mutating func take(_ frame: DrawnFrame) throws(RenderError)
    /// After the last frame: what is still in flight is written, and files of frames closed.
    mutating func endFrames(_ ending: FramesEnding) throws(RenderError)
    /// With the summary and the complete trace: the files written last. The trace and summary
    /// come first among the sinks, so an output that fails cannot cost them.
    func write(_ ending: RenderEnding) throws(RenderError)
    /// The render failed: whatever the output holds open is closed and its temporary file
    /// removed, before the failure is reported (and the process perhaps exits).
    mutating func abandon()
}

extension FrameSink {
    mutating func take(_ frame: DrawnFrame) throws(RenderError) {}
    mutating func endFrames(_ ending: FramesEnding) throws(RenderError) {}
    func write(_ ending: RenderEnding) throws(RenderError) {}
    mutating func abandon() {}
}

/// A frame as drawn, for the sinks.
struct DrawnFrame {
    var index: Int
    /// Timeline seconds.
    var time: Double
    var fps: Double
    /// The canvas as drawn, with its alpha (PNG frames keep it with `--alpha`).
    var canvas: RGBAImage
    /// The canvas over black where it is not opaque (what the MP4 and the contact sheet show);
    /// the same picture as `canvas` when that is opaque.
    var opaque: RGBAImage
    /// What it showed, by the trace's names (`frames.jsonl`), when the render writes them.
    var record: FrameRecord?
    /// The frame's sound: `count` samples mixed from the stories on screen at its time.
    var mix: (Int) -> FrameSound
    /// The sound of `count` samples at another timeline time: a recording's frames that were
    /// too late to draw are repeated pictures, but their sound is their own.
    var soundAt: (_ time: Double, _ count: Int) -> FrameSound = { FrameSound(count: $1) }
}

/// What the frame sinks need to know once no frame will come.
struct FramesEnding {
    /// Frames the realtime clock had no time to draw.
    var lateFrames: [Int]
}

/// A finished render, for the sinks that write at the end.
struct RenderEnding {
    var summary: RenderSummary
    var trace: LifecycleTrace
    var folder: String
    var fps: Double
    /// The frames written as PNG, first to last (late frames filled in), or nil when none were.
    var writtenFrames: ClosedRange<Int>?
}
