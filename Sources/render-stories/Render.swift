import ArgumentParser
import Compositor
import Foundation
import StoryPlayer

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a storyboard to PNG frames, a lifecycle trace and a summary (the default).",
        discussion: """
        Writes DIR/frame-000000.png, frame-000001.png, … (frame n shows timeline time n / fps), \
        DIR/lifecycle.jsonl (one event per line: play, opened, firstFrame, ended, failed, stop, ignored) \
        and DIR/summary.json. Every file appears whole or not at all. A story whose media cannot be \
        opened shows an error card and the render goes on; --strict turns that into exit code 3. Local \
        files that do not exist are named before rendering starts (with their JSON path); with \
        --strict the render then stops before its first frame, with exit code 2.
        """
    )

    @Argument(help: "The storyboard JSON file. Default: samples/demo.json.")
    var storyboard: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Output folder. Default: out/<storyboard name>.", valueName: "dir"))
    var output: String?

    @Option(help: ArgumentHelp("Canvas size, overriding the storyboard's, e.g. 1080x1920.", valueName: "WxH"))
    var size: CanvasSize?

    @OptionGroup var overrides: TimelineOverrides

    @Flag(help: "Draw no UI over the stories.")
    var noOverlay = false

    @OptionGroup var background: BackgroundArguments

    @OptionGroup var png: PNGArguments

    @Option(help: "Rasterizer threads, and as many PNG encoders, \(RenderOptions.threadCounts.spoken). Default: one per core.")
    var threads: Int?

    @Option(help: "virtual: frame n shows n / fps, deterministic. realtime: timeline time is wall-clock time, as on a phone; overrides the storyboard's clock.")
    var clock: PlaybackClock?

    @Option(help: ArgumentHelp("Also write an H.264 MP4 with the stories' sound mixed in (AAC, 48 kHz stereo); while two stories share the screen, each is heard by its share.", valueName: "file.mp4"))
    var mp4: String?

    @Flag(help: "Write no PNG frames (with --mp4: the clip only).")
    var noPng = false

    @Option(help: "x264 constant rate factor for --mp4 (lower: better and larger).")
    var crf = ClipOptions.defaultCRF

    @Option(help: "x264 preset for --mp4 (ultrafast … veryslow).")
    var preset = ClipOptions.defaultPreset

    // Unconditional: in "--loudness -14" the "-14" is the value, not a flag.
    @Option(parsing: .unconditional,
            help: ArgumentHelp("Bring the MP4's sound to this integrated loudness (EBU R128) with one gain, its true peak at most -1 dBTP: a number of LUFS from -70 to -5, or ebu (-23). Needs --mp4; summary.json reports the loudness measured before and after.", valueName: "LUFS|ebu"))
    var loudness: String?

    @Option(help: ArgumentHelp("Render only frames A to B-1 (a shard), byte-identical to the same frames of a full render; also A.. (to the end), ..B (from the start) or A (one frame). The trace covers only the range (check it with --shard; join shards with merge).", valueName: "A..B"))
    var frames: FrameRange?

    @Option(help: ArgumentHelp("Also write a contact sheet: a grid of evenly spaced frames, each labelled with its time.", valueName: "file.png"))
    var contactSheet: String?

    @Option(help: "Columns of the contact sheet.")
    var sheetColumns = ContactSheet.defaultColumns

    @Option(help: "Frames on the contact sheet.")
    var sheetFrames = RenderOptions.defaultSheetFrames

    @Option(help: ArgumentHelp("Also write the lifecycle as a picture: a lane per story, a bar per player.", valueName: "file.png"))
    var timeline: String?

    @Flag(help: "Also write DIR/report.html: the frames in a player beside the lifecycle and the summary (see `report`).")
    var report = false

    @Option(help: "bar: a one-line progress bar on stderr when it is a terminal. json: one JSON line a second on stderr ({\"frame\", \"of\", \"fps\", \"eta_s\"}), for job runners. none: nothing.")
    var progress: ProgressStyle = .bar

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @Flag(help: "Exit 3 when any story failed.")
    var strict = false

    func validate() throws {
        // An empty range is a usage error of `render` itself, caught before the storyboard is
        // read, so the message comes with render's usage.
        if let frames, let lower = frames.lower, let upper = frames.upper, lower >= upper {
            throw ValidationError("--frames \(frames.text): the range is empty (A..B needs A < B)")
        }
        if let problem = size?.problem { throw ValidationError(problem) }
        if let mp4, (mp4 as NSString).pathExtension.lowercased() != "mp4" {
            throw ValidationError("--mp4 \(mp4): the clip is an MP4 file (H.264 and AAC); give its name the .mp4 extension")
        }
        if let threads, !RenderOptions.threadCounts.contains(threads) {
            throw ValidationError("--threads must be \(RenderOptions.threadCounts.spoken)")
        }
        if noPng && mp4 == nil { throw ValidationError("--no-png needs --mp4: otherwise nothing would be written") }
        if let loudness {
            guard LoudnessTarget(argument: loudness) != nil else {
                throw ValidationError("--loudness \(loudness): give \(LoudnessTarget.spoken)")
            }
            if mp4 == nil { throw ValidationError("--loudness needs --mp4: it sets the loudness of the MP4's sound") }
            if frames != nil {
                throw ValidationError("--loudness cannot be used with --frames: loudness is measured over the whole clip, "
                                      + "and a shard holds only part of it")
            }
        }
        guard (0...51).contains(crf) else { throw ValidationError("--crf must be 0 to 51") }
        guard ClipOptions.presets.contains(preset) else {
            throw ValidationError("--preset must be one of \(ClipOptions.presets.joined(separator: ", "))")
        }
        guard (1...50).contains(sheetColumns) else { throw ValidationError("--sheet-columns must be 1 to 50") }
        guard (1...1000).contains(sheetFrames) else { throw ValidationError("--sheet-frames must be 1 to 1000") }
    }

    func run() throws {
        let path = try StoryboardFile.resolve(storyboard)
        let board = try Storyboard(contentsOf: path).overriding(width: size?.width, height: size?.height,
                                                               fps: overrides.fps, duration: overrides.duration,
                                                               background: background.color)
        // A typo in a file name is named now, not found when its story fails. The story still
        // fails with its card and the render goes on, unless --strict, which stops here.
        let missing = board.missingLocalFiles
        for file in missing { printError("\(strict ? "error" : "warning"): \(file)") }
        if strict && !missing.isEmpty { throw ExitCode(2) }
        let folder = output ?? "out/" + ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        var options = RenderOptions(outputFolder: folder)
        options.png = png.options
        options.overlay = !noOverlay
        if let threads { options.threads = threads }
        options.clock = clock
        options.contactSheet = contactSheet
        options.sheetColumns = sheetColumns
        options.sheetFrames = sheetFrames
        options.timeline = timeline
        // An interrupted render's report shows what was drawn, and says it was interrupted.
        options.report = report
        if let frames {
            // Checked against the render's own frame count, so a range past the end is a usage
            // error instead of an empty render that exits 0.
            let total: Int
            do {
                total = try StoryRender.countFrames(board)
            } catch {
                printError("error: \(error)")
                throw ExitCode(1)
            }
            options.frameRange = try frames.resolved(frames: total)
        }
        options.writeFrames = !noPng
        options.clip = mp4.map {
            var clip = ClipOptions(path: $0)
            clip.crf = crf
            clip.preset = preset
            return clip
        }
        options.loudness = loudness.flatMap(LoudnessTarget.init(argument:))
        do {
            try options.check(for: board)
        } catch {
            throw ValidationError(error.message)
        }
        // SIGINT and SIGTERM stop the render at the next frame: frames in flight are finished,
        // temporary files removed, and summary.json says "interrupted". A second signal ends
        // the process at once, after removing the temporary files still open (the MP4's, a
        // frame's), so that no number of signals leaves one behind.
        let interruption = RenderInterruption()
        options.interruption = interruption
        let signalSources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                // Two signals close together may reach the handler as one, with a count of two.
                if interruption.requested != nil || source.data > 1 {
                    TemporaryFiles.removeAll()
                    _exit(128 + number)
                }
                interruption.request(signal: number)
            }
            source.resume()
            return source
        }
        defer { signalSources.forEach { $0.cancel() } }
        // A job runner reading --progress json is told the frame count from the first line, even
        // for a storyboard without a duration (counted ahead, without decoding) or a shard.
        var expected = options.frameRange?.count
        if expected == nil, !quiet, self.progress == .json, board.duration == nil {
            expected = try? StoryRender.countFrames(board)
        }
        let progress = ProgressLine(style: quiet ? .none : self.progress, expected: expected)
        if progress.isEnabled {
            options.progress = { @Sendable done, total in progress.show(done: done, total: total) }
        }
        let summary: RenderSummary
        do {
            summary = try StoryRender(storyboard: board, options: options).run()
        } catch {
            progress.clear()
            printError("error: \(error)")
            throw ExitCode(1)
        }
        progress.clear()
        progress.finish(frames: summary.frames, wallSeconds: summary.wallSeconds, interrupted: summary.interrupted)
        if let signal = interruption.requested {
            printError("interrupted: \(summary.frames) frames written to \(folder); summary.json says \"interrupted\": true")
            throw ExitCode(128 + signal)
        }
        if quiet {
            if strict && summary.hasFailures { throw ExitCode(3) }
            return
        }
        for notice in summary.notices { printError("note: \(notice)") }
        for story in summary.failedStories {
            // A missing local file was named before the render, with its JSON path: once is
            // enough (summary.json and the trace still list the failure).
            let errors = story.errors.filter { error in !missing.contains { error.contains($0.file) } }
            guard !errors.isEmpty else { continue }
            printError("story \(story.id) failed: \(errors.joined(separator: "; "))")
        }
        for failure in summary.failedParticipants where !missing.contains(where: { failure.error.contains($0.file) }) {
            printError("participant \(failure.participant) of \(failure.story) failed: \(failure.error)")
        }
        if !summary.lateFrames.isEmpty {
            printError("note: \(summary.lateFrames.count) frames were late and skipped (late_frames in summary.json)")
        }
        print("rendered \(summary.frames) frames to \(folder) in \(String(format: "%.2f", summary.wallSeconds)) s "
              + "(\(String(format: "%.1f", summary.framesPerSecond)) fps, peak \(summary.peakAlivePlayers) player\(summary.peakAlivePlayers == 1 ? "" : "s") alive)")
        if strict && summary.hasFailures { throw ExitCode(3) }
    }
}

enum StoryboardFile {
    static let demo = "samples/demo.json"

    /// The storyboard to use, or the bundled demo when none is named.
    static func resolve(_ path: String?) throws -> String {
        if let path { return path }
        guard FileManager.default.fileExists(atPath: demo) else {
            throw ValidationError("no storyboard given, and \(demo) is not in the current folder")
        }
        return demo
    }
}
