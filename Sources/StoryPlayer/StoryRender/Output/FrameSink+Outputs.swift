import Compositor
import Foundation
import StoryBase
import StoryTrace

// MARK: - Frames as PNG

/// `frame-NNNNNN.png`, compressed by the writer's threads while the next frame is drawn.
struct PNGFrames: FrameSink {
    let writer: FrameWriter
    let folder: String
    /// One frame in `every` is kept (a recording's `--frames-every`); 1: all of them.
    let every: Int
    private(set) var first: Int?
    private(set) var last: Int?

    init(writer: FrameWriter, folder: String, every: Int = 1) {
        self.writer = writer
        self.folder = folder
        self.every = max(1, every)
    }

    mutating func take(_ frame: DrawnFrame) throws(RenderError) {
        guard frame.index % every == 0 else { return }
        writer.submit(frame.canvas, frame: frame.index, to: StoryRenderer.framePath(folder, frame.index))
        first = first ?? frame.index
        last = frame.index
        if let failure = writer.failure { throw PNGFrames.error(failure) }
    }

    /// Names the frame whose file failed (not the one being submitted when the failure was
    /// seen, which is a few frames later), and its path.
    static func error(_ failure: FrameWriter.Failure) -> RenderError {
        RenderError(.output, "cannot write frame \(failure.frame) (\(failure.path))",
                    cause: failure.error.cause ?? failure.error.message)
    }

    mutating func endFrames(_ ending: FramesEnding) throws(RenderError) {
        // Late frames are filled with the frame before them, so they are written too.
        if let lastLate = ending.lateFrames.filter({ $0 > 0 }).max(), let drawn = last, lastLate > drawn { last = lastLate }
        writer.waitForQueuedFrames()
        if let failure = writer.failure { throw PNGFrames.error(failure) }
        guard every == 1 else { return }
        do {
            try fillLateFrames(ending.lateFrames)
        } catch {
            throw RenderError(.output, "cannot write frames", cause: error)
        }
    }

    /// The frames written, first to last.
    var written: ClosedRange<Int>? { first.flatMap { first in last.map { first...$0 } } }

    /// A frame the realtime clock had no time to draw is the frame before it again, as a phone
    /// keeps its last picture on screen: the numbering has no hole, so `ffmpeg -i frame-%06d.png`
    /// reads the whole render. They stay listed in `late_frames`.
    private func fillLateFrames(_ late: [Int]) throws(FileError) {
        for n in late where n > 0 {
            let previous = StoryRenderer.framePath(folder, n - 1)
            guard FileManager.default.fileExists(atPath: previous) else { continue }
            try AtomicFile.write(try AtomicFile.read(previous), to: StoryRenderer.framePath(folder, n))
        }
    }
}

// MARK: - The MP4

extension ClipTrack: FrameSink {
    mutating func take(_ frame: DrawnFrame) throws(RenderError) {
        try submit(frame.opaque, withAlpha: frame.canvas, frame: frame.index, fps: frame.fps, mix: frame.mix, soundAt: frame.soundAt)
    }

    mutating func endFrames(_ ending: FramesEnding) throws(RenderError) {
        try repeatSkippedLastFrames(ending.lateFrames)
        try finish()
    }

    mutating func abandon() {
        abandonFiles()
    }
}

// MARK: - The files written at the end

/// `lifecycle.jsonl` and `summary.json`, each whole or not at all.
struct TraceFiles: FrameSink {
    func write(_ ending: RenderEnding) throws(RenderError) {
        do {
            try AtomicFile.write(Array(ending.trace.jsonLines.utf8),
                                 to: (ending.folder as NSString).appendingPathComponent("lifecycle.jsonl"))
            try AtomicFile.write(Array(ending.summary.json.utf8),
                                 to: (ending.folder as NSString).appendingPathComponent("summary.json"))
        } catch {
            throw RenderError(.output, "cannot write the trace or summary in \(ending.folder)", cause: error)
        }
    }
}

/// `--contact-sheet`: thumbnails chosen evenly as the frames go by.
struct ContactSheetFile: FrameSink {
    let path: String
    let columns: Int
    var thumbnails: ThumbnailPicker

    mutating func take(_ frame: DrawnFrame) throws(RenderError) {
        thumbnails.offer(frame.index, time: frame.time, frame.opaque)
    }

    func write(_ ending: RenderEnding) throws(RenderError) {
        let chosen = thumbnails.chosen
        guard !chosen.isEmpty else { return }
        do {
            try ContactSheet(columns: columns, cellWidth: thumbnails.width).render(chosen).writePNG(to: path)
        } catch {
            throw RenderError(.output, "cannot write the contact sheet \(path)", cause: error)
        }
    }
}

/// `--timeline`: the lifecycle drawn as lanes.
struct TimelineFile: FrameSink {
    let path: String

    func write(_ ending: RenderEnding) throws(RenderError) {
        do {
            try LifecycleTimeline.render(ending.trace.events).writePNG(to: path)
        } catch {
            throw RenderError(.output, "cannot write the timeline \(path)", cause: error)
        }
    }
}

/// `--report`: `report.html`, from the trace and summary in memory rather than read back from
/// the files just written.
struct ReportFile: FrameSink {
    /// The MP4 beside it, if the render wrote one.
    let clip: String?

    func write(_ ending: RenderEnding) throws(RenderError) {
        let clipURL = clip.map { ReportPage.relativeURL(of: $0, from: ending.folder) }
        let page = ReportPage(trace: ending.trace.jsonLines, summary: ending.summary.json, fps: ending.fps,
                              frames: ending.writtenFrames, clip: clipURL)
        do {
            _ = try page.write(toFolder: ending.folder)
        } catch {
            throw RenderError(.output, "cannot write the report in \(ending.folder)", cause: error)
        }
    }
}
