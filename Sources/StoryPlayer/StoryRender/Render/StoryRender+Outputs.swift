import Compositor
import Foundation
import StoryTrace

// MARK: - The files beside the frames

extension StoryRender {
    /// The summary of a finished render.
    func summarize(frames: Int, framesCovered: Int) -> RenderSummary {
        var summary = RenderSummary(frames: frames, wallSeconds: trace.wall, stories: stories,
                                    trace: trace, notices: notices,
                                    stageSeconds: clock.seconds, cores: Rasterizer.defaultThreadCount)
        summary.clock = playback
        summary.frameRange = options.frameRange
        summary.timelineFPS = storyboard.canvas.fps
        summary.lateFrames = lateFrames
        summary.clockStartedAt = clockStartedAt
        summary.posterMisses = posters.misses
        summary.timelineFrames = framesCovered
        summary.feedPages = feed?.pagesLoaded
        return summary
    }

    /// `lifecycle.jsonl` and `summary.json`, then the contact sheet and timeline pictures when
    /// asked for, each written whole or not at all.
    func writeOutputs(_ summary: RenderSummary, to folder: String) throws(RenderError) {
        // The trace and summary first: a picture that cannot be written must not cost them.
        do {
            try AtomicFile.write(Array(trace.jsonLines.utf8), to: (folder as NSString).appendingPathComponent("lifecycle.jsonl"))
            try AtomicFile.write(Array(summary.json.utf8), to: (folder as NSString).appendingPathComponent("summary.json"))
        } catch {
            throw RenderError(.output, "cannot write the trace or summary in \(folder)", cause: error)
        }
        if let path = options.contactSheet, case let chosen = thumbnails.chosen, !chosen.isEmpty {
            do {
                try ContactSheet(columns: options.sheetColumns, cellWidth: thumbnails.width).render(chosen).writePNG(to: path)
            } catch {
                throw RenderError(.output, "cannot write the contact sheet \(path)", cause: error)
            }
        }
        if let path = options.timeline {
            do {
                try LifecycleTimeline.render(trace.events).writePNG(to: path)
            } catch {
                throw RenderError(.output, "cannot write the timeline \(path)", cause: error)
            }
        }
    }
}
