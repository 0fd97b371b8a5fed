import Compositor
import Foundation

// MARK: - The files beside the frames

extension StoryRenderer {
    /// The summary of a finished render.
    func summarize(frames: Int, framesCovered: Int) -> RenderSummary {
        var summary = RenderSummary(frames: frames, wallSeconds: trace.wall, stories: stories,
                                    declaredStories: storyboard.stories.count, trace: trace, notices: notices,
                                    stageSeconds: clock.seconds, cores: Rasterizer.defaultThreadCount)
        summary.clock = playback
        summary.frameRange = options.frameRange
        summary.noteStoriesWithoutAPicture(trace: trace)
        summary.shardCost = options.frameRange == nil ? nil : clock.shardCost
        summary.timelineFPS = storyboard.canvas.fps
        summary.lateFrames = lateFrames
        summary.clockStartedAt = clockStartedAt
        summary.posterMisses = posters.misses
        summary.timelineFrames = framesCovered
        summary.feedPages = feed?.pagesLoaded
        summary.renderOf = renderOf
        return summary
    }

    /// What the frames are drawn from, for a shard's `render_of`: two shards that differ in any
    /// of these show different pictures at the same frame, so `merge` must not join them.
    var renderOf: [(key: String, value: String)] {
        let canvas = storyboard.canvas
        return [
            ("storyboard", storyboard.sourceDigest ?? "built in code"),
            ("canvas", "\(canvas.width)x\(canvas.height)"),
            ("background", canvas.background.description),
            ("overlay", options.overlay ? "on" : "off"),
            ("alpha", options.png.keepAlpha ? "kept" : "dropped"),
            ("clock", playback.rawValue),
            ("guides", (options.captionZones?.rawValue ?? "none") + (options.burnGuides ? ", burnt in" : "")),
        ]
    }

    /// The render's outputs, in the order they take frames and write: the trace and summary
    /// (and the frames' records)
    /// first (a picture that cannot be written must not cost them), then the contact sheet, the
    /// encoded files and the PNG frames, then the timeline and the report.
    /// Whether the render writes `frames.jsonl`: beside PNG frames, not in a recording (whose
    /// hours of frames it would hold in memory). Frames are described only then.
    var writesFrameRecords: Bool { options.writeFrames && options.record == nil }

    func sinks(writer: FrameWriter, plannedFrames: Int?) throws(RenderError) -> [any FrameSink] {
        if let record = options.record { return try recordSinks(record, writer: writer) }
        var sinks: [any FrameSink] = [TraceFiles()]
        // What each frame showed, beside the frames, for `compare` to pair them by.
        if writesFrameRecords { sinks.append(FrameRecordFile()) }
        if let path = options.contactSheet {
            sinks.append(ContactSheetFile(path: path, columns: options.sheetColumns,
                                          thumbnails: ThumbnailPicker(wanted: options.sheetFrames, planned: plannedFrames,
                                                                      width: min(storyboard.canvas.width, 180))))
        }
        if !options.clips.isEmpty { sinks.append(try ClipTrack(options.clips, loudness: options.loudness, canvas: storyboard.canvas)) }
        if options.writeFrames { sinks.append(PNGFrames(writer: writer, folder: options.outputFolder)) }
        if let path = options.timeline { sinks.append(TimelineFile(path: path)) }
        if options.report { sinks.append(ReportFile(clip: options.clip?.path)) }
        return sinks
    }
}
