import Compositor
import StoryMedia
import StoryModel
import StoryPlayback
import StoryTrace

/// The frame loop: frame by frame, the viewer steps to the frame's time, the players follow,
/// and the frame is drawn and handed to the outputs. A shard steps through the frames before
/// its range without drawing them; a realtime render steps through the frames it was too late
/// for; a signal or the viewer finishing ends the loop.
extension StoryRenderer {
    /// Steps through the render's frames, drawing those it covers into `sinks`.
    func drawFrames(_ range: RenderFrames, writer: FrameWriter, sinks: inout [any FrameSink]) throws(RenderError) -> FrameLoopProgress {
        var progress = FrameLoopProgress(pacing: FramePacing(clock: playback, fps: range.fps, takenAsLate: options.framesTakenAsLate,
                                                                listsAtMost: listsLateFrames))
        // Known from the start: a recording's running summary says it, as the final one does.
        clockStartedAt = playback == .realtime ? progress.pacing.startedAt : nil
        for n in 0..<range.limit {
            if let signal = options.interruption?.requested {
                progress.interrupted = signal
                break
            }
            if range.shard.isPast(n) {
                stepToShardEnd(n, range, &progress)
                break
            }
            if range.shard.startsLate, range.shard.isFirst(n) { setDeferred(false) }
            guard progress.pacing.waitForFrame(n) else {
                lateFramesSoFar += 1
                guard stepThroughLateFrame(n, range, &progress) else { break }
                continue
            }
            guard stepToDrawnFrame(n, range, &progress) else { break }
            if options.record != nil, followRooms(at: range.time(n)) {
                progress.emptied = true
                break
            }
            if range.shard.fastForwards(n) {
                // A room decides who is large from its sound frame by frame, drawn or not.
                for player in players { player.current?.followRoom(at: range.time(n)) }
                framesBefore = n + 1
                continue
            }
            try draw(n, range, writer: writer, sinks: &sinks)
            progress.frames += 1
            options.progress?(progress.frames, range.planned)
        }
        lateFrames = progress.pacing.lateFrames
        lateFrameCount = progress.pacing.lateFrameCount
        clockStartedAt = playback == .realtime ? progress.pacing.startedAt : nil
        return progress
    }

    /// Frame `n`, the first past a shard's range. An open-ended render steps to the frame at
    /// which the viewer finishes before it ends there; a shard's end may be that frame, so it
    /// steps there too (the merge drops what this records when the next shard records it).
    private func stepToShardEnd(_ n: Int, _ range: RenderFrames, _ progress: inout FrameLoopProgress) {
        guard range.planned == nil else { return }
        progress.endTime = range.time(n)
        let mark = trace.eventCount
        step(toFrame: n)
        // A drag or pull let go before this frame is the next shard's, which steps
        // here too; if the viewer finishes here, there is no next shard.
        if !navigator.isFinished { trace.dropReleases(from: mark) }
    }

    /// Frame `n`, too late to draw: not drawn, but an open-ended render still steps its viewer
    /// through it: one that finishes there ends the render there, as a frame drawn in time
    /// does, instead of one frame later with a copy in the late one's place. False when the
    /// render ends there.
    private func stepThroughLateFrame(_ n: Int, _ range: RenderFrames, _ progress: inout FrameLoopProgress) -> Bool {
        guard range.planned == nil else { return true }
        // The viewer has moved to t: players stopped or started here are stopped at
        // or after t if the render ends now (a signal, the limit).
        progress.endTime = range.time(n)
        step(toFrame: n)
        guard navigator.isFinished else { return true }
        progress.pacing.forget(n)
        return false
    }

    /// Steps the viewer and players to frame `n`, due now; false when an open-ended render's
    /// viewer finished there.
    private func stepToDrawnFrame(_ n: Int, _ range: RenderFrames, _ progress: inout FrameLoopProgress) -> Bool {
        let t = range.time(n)
        progress.endTime = t
        // What the step to a shard's first frame records is the shard's, though a drag or
        // pull let go since the frame before is timed before the frame.
        if range.shard.isFirst(n) { progress.firstStepMark = trace.eventCount }
        step(toFrame: n)
        if range.shard.isFirst(n) { for player in players { player.current?.activate(at: t, previousFrame: t - 1 / range.fps) } }
        foreseePlayEnds(after: n, lastFrame: range.lastFrame)
        return !(range.planned == nil && navigator.isFinished)
    }

    /// Draws frame `n` and hands it to every output.
    private func draw(_ n: Int, _ range: RenderFrames, writer: FrameWriter, sinks: inout [any FrameSink]) throws(RenderError) {
        let t = range.time(n)
        let canvasSpec = storyboard.canvas
        var canvas = writer.reusableCanvas()
            ?? RGBAImage(width: canvasSpec.width, height: canvasSpec.height, fill: canvasSpec.background)
        let faces = compose(at: t, into: &canvas)
        // The guides are the screen's, over the whole frame; only when asked for in an export.
        if options.burnGuides, let platform = options.captionZones { canvas.drawSafeZoneGuides(platform) }
        let opaque = flattenedForOpaqueOutputs(&canvas)
        var frame = DrawnFrame(index: n, time: t, fps: range.fps, canvas: canvas, opaque: opaque,
                               record: writesFrameRecords ? frameRecord(n, at: t, faces: faces) : nil) { count in
            self.mix(at: t, count: count)
        }
        if options.record != nil { frame.soundAt = { time, count in self.mix(at: time, count: count) } }
        for index in sinks.indices { try sinks[index].take(frame) }
    }
}
