import Compositor
import StoryMedia
import StoryModel
import StoryPlayback
import StoryTrace

/// The end of a render, once its frame loop is over: the players stopped where the render
/// ended, the outputs ended and written, the trace and folder made to say what this render did.
extension StoryRenderer {
    /// Ends the render whose frame loop left `progress`, and writes its outputs.
    func finish(_ progress: FrameLoopProgress, _ range: RenderFrames, sinks: inout [any FrameSink]) throws(RenderError) -> RenderSummary {
        let (finalTime, framesCovered) = try coverage(of: progress, range)
        if progress.interrupted == nil { noteGesturesNeverPerformed(frames: framesCovered, fps: range.fps) }
        for player in players where player.isPlaying {
            countReachLifts(of: player.current)
            player.stop(at: finalTime)
        }
        for index in sinks.indices { try sinks[index].endFrames(FramesEnding(lateFrames: lateFrames)) }
        let loudness = sinks.lazy.compactMap { ($0 as? ClipTrack)?.loudness }.first
        if let notice = loudness?.notice { warnings.append(notice) }
        settleRequests(at: finalTime)
        if !range.shard.endsBefore(framesCovered) && progress.interrupted == nil { noteUnplayedItemsThatFailed() }
        tidy(range, firstStepMark: progress.firstStepMark, framesCovered: framesCovered)
        var summary = summarize(frames: progress.frames, framesCovered: framesCovered)
        summary.interrupted = progress.interrupted != nil
        summary.loudness = loudness
        if options.record != nil { summary.record = recordFigures(running: false, frames: framesCovered) }
        let written = sinks.lazy.compactMap { $0 as? PNGFrames }.first?.written
        let ending = RenderEnding(summary: summary, trace: trace, folder: options.outputFolder, fps: range.fps, writtenFrames: written)
        for sink in sinks { try sink.write(ending) }
        return summary
    }

    /// Where the render's timeline ends (the players stop there) and how many frames it covers,
    /// with a notice when the open-ended limit or a signal stopped it.
    private func coverage(of progress: FrameLoopProgress, _ range: RenderFrames) throws(RenderError)
        -> (finalTime: Double, framesCovered: Int) {
        let finished = navigator.isFinished
        // An open-ended shard that stops at its range's end, the viewer still going, was cut by
        // its range, not by the limit; it learns the whole render's frames by counting them.
        let cutByRange = range.planned == nil && !finished && progress.interrupted == nil && range.shard.endsBefore(range.limit)
        if range.planned == nil && !finished && progress.interrupted == nil && !cutByRange && !progress.emptied {
            warnings.append("stopped after \(StoryRenderer.openEndedLimit) s of timeline: give \"duration\" for longer renders")
        }
        var finalTime = range.shard.finalTime(planned: range.planned, lastFrameTime: progress.endTime, finished: finished, fps: range.fps)
        var framesCovered = range.planned ?? (framesBefore + progress.frames + lateFrameCount)
        if cutByRange { framesCovered = try StoryRenderer.countFrames(storyboard, limits: options.limits) }
        if progress.emptied, let wait = options.record?.untilEmpty {
            finalTime = progress.endTime
            framesCovered = Int((progress.endTime * range.fps).rounded()) + 1
            warnings.append("the room was empty for \(wait) s: the recording ended")
        }
        if let interrupted = progress.interrupted {
            // The players stop where the render did; what was written is the whole of it.
            finalTime = progress.endTime
            framesCovered = Int((progress.endTime * range.fps).rounded()) + 1
            warnings.append("interrupted by signal \(interrupted) after \(progress.frames) frames")
        }
        return (finalTime, framesCovered)
    }

    /// Every preload requested is in the trace, complete, before the trace is cut or written;
    /// a probe still waiting for a server is called off rather than waited out.
    private func settleRequests(at finalTime: Double) {
        // The virtual clock's trace must not depend on how fast the render ran: a probe of a
        // local file ends in milliseconds, so a short render (a shard) waits a moment for it.
        if playback == .virtual { posters.waitForRequests(upTo: StoryRenderer.probeWaitAtEnd) }
        posters.cancelProbes()
        posters.waitForRequests()
        completePreloads(at: finalTime)
    }

    /// The trace and the folder made to hold this render's frames only.
    private func tidy(_ range: RenderFrames, firstStepMark: Int, framesCovered: Int) {
        let folder = options.outputFolder
        if let shard = range.shard.range {
            // A shard's trace covers only its range; its stale-frame cleanup would delete the
            // frames of the shards beside it.
            trace.keepEvents(from: Double(shard.lowerBound) / range.fps, releasesFrom: firstStepMark)
        } else if options.writeFrames {
            removeStaleFrames(in: folder, from: framesCovered)
        } else if case let left = StoryRenderer.frameFiles(in: folder), left > 0 {
            // Not deleted: the user asked for no frames, not for the old ones to go. Removing
            // only those past this render's count, as a PNG render does, left a folder whose
            // first frames came from another render with nothing to say so.
            warnings.append("\(folder) holds \(left) frame PNG\(left == 1 ? "" : "s") from an earlier render, left as they were: "
                            + "this render wrote none (--no-png), so they do not match its trace and summary")
        }
    }
}
