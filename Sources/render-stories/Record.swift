import ArgumentParser
import Foundation
import StoryPlayer

/// `render-stories record`: a room or a story viewer rendered on the realtime clock for as long
/// as it runs, into outputs that never end.
struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record a live room or a story viewer for hours: HLS, MP4 segments and pushes to RTMP or SRT ingests, from one encode.",
        discussion: """
        Renders BOARD on the realtime clock (timeline time is wall time), open-ended: until the \
        storyboard's "duration" or --duration, until SIGINT or SIGTERM, or with --until-empty until a \
        room has had no participant for that long. Each frame is encoded once (H.264, x264's \
        zerolatency tuning, closed GOPs; AAC 48 kHz stereo) and the packets go to every output:
          --hls DIR        DIR/index.m3u8 with fMP4 segments (a sliding window, or an EVENT playlist \
        that becomes VOD at a clean stop); EXT-X-PROGRAM-DATE-TIME on every segment.
          --segments DIR   MP4 files named by the UTC time of their first frame, cut at UTC multiples \
        of --segment-time; each is fragmented, so it plays while written and after a crash, up to \
        its last second.
          --push URL       rtmp://, rtmps:// (FLV) or srt:// (MPEG-TS); retried with backoff when the \
        ingest refuses, drops or stalls, while the other outputs go on. What cannot be sent in time is \
        dropped (never buffered without bound) and traced.
        The output folder gets lifecycle.jsonl, appended as it happens (with output_started, \
        output_lost, output_back, segment_closed and push_dropped events), and summary.json, rewritten \
        every 10 s with the running figures ("record": frames, late frames, each output's state and \
        bytes, each participant's state, CPU seconds, RSS). No PNG frames unless --frames-every.

        Stopping: SIGTERM or SIGINT closes the current segments whole, ends the playlist, closes each \
        push, and exits 0 (SIGTERM) or 130 (SIGINT); a second signal stops at once. docs/recording.md \
        says what each output guarantees after a crash.

        Examples:
          render-stories record room.json --hls /srv/hls/room1 --push rtmp://ingest/live/key
          render-stories record room.json --segments /data/room1 --segment-time 300 --until-empty 60
        """
    )

    @Argument(help: "The storyboard JSON file: a room, or stories one after another.")
    var storyboard: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Folder for lifecycle.jsonl, summary.json and any --frames-every PNGs. Default: out/<storyboard name>-record.", valueName: "dir"))
    var output: String?

    @Option(help: ArgumentHelp("Canvas size, overriding the storyboard's, e.g. 720x1280.", valueName: "WxH"))
    var size: CanvasSize?

    @OptionGroup var overrides: TimelineOverrides

    @OptionGroup var parameters: ParameterArguments

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop once a room has had no participant (all left or failed) for this many seconds.", valueName: "seconds"))
    var untilEmpty: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Keep one PNG frame every N frames in the output folder (for a contact sheet). Default: none.", valueName: "N"))
    var framesEvery: Int?

    @OptionGroup var outputs: RecordOutputArguments

    @OptionGroup var encoding: RecordEncodingArguments

    @Option(parsing: .unconditional, help: "Rasterizer threads, \(RenderOptions.threadCounts.spoken). Default: one per core.")
    var threads: Int?

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        if let untilEmpty, !(untilEmpty > 0 && untilEmpty <= Storyboard.durations.upperBound) {
            throw ValidationError("--until-empty must be more than 0 and at most \(Int(Storyboard.durations.upperBound)) seconds")
        }
        if let framesEvery, framesEvery < 1 { throw ValidationError("--frames-every must be 1 or more") }
        if let threads, !RenderOptions.threadCounts.contains(threads) {
            throw ValidationError("--threads must be \(RenderOptions.threadCounts.spoken)")
        }
        if let problem = size?.problem { throw ValidationError(problem) }
    }

    func run() throws {
        let platform = try encoding.platform()
        let board = try Storyboard(contentsOf: storyboard, parameters: parameters.values)
            .overriding(width: platform?.width ?? size?.width, height: platform?.height ?? size?.height,
                        fps: platform?.fps ?? overrides.fps, duration: overrides.duration, background: nil)
        for file in board.missingLocalFiles { printError("warning: \(file)") }
        try board.checkCaptions()
        let folder = output ?? "out/" + ((storyboard as NSString).lastPathComponent as NSString).deletingPathExtension + "-record"
        var options = RenderOptions(outputFolder: folder)
        options.clock = .realtime
        options.writeFrames = false
        if let threads { options.threads = threads }
        var record = outputs.recordOptions()
        record.encoding = encoding.clipOptions(platform: platform)
        record.untilEmpty = untilEmpty
        record.framesEvery = framesEvery
        options.record = record
        let interruption = RenderInterruption()
        options.interruption = interruption
        let signals = handleSignals(interruption)
        defer { signals.cancel() }
        let freePages = ProcessMemory.FreePageReturn()
        defer { freePages.stop() }
        if !quiet { printError("recording \(storyboard) to \(outputs.spoken); \(folder)/summary.json has the running figures") }
        let summary: RenderSummary
        do {
            summary = try StoryRenderer(storyboard: board, options: options).run()
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
        if !quiet { sayOutcome(summary) }
        // SIGINT is the user's Ctrl-C, which a shell reports as 130; SIGTERM is a scheduler's
        // "stop now, cleanly", and a clean stop is a success.
        if interruption.requested == SIGINT { throw ExitCode(130) }
    }

    /// What was recorded, and each output's end.
    private func sayOutcome(_ summary: RenderSummary) {
        guard let record = summary.record else { return }
        printError(String(format: "recorded %d frames (%.1f s, %d late)", record.frames, record.seconds, record.lateFrames))
        // The other outputs went on without it; the trace's output_lost says why.
        for output in record.outputs where output.state == .lost {
            printError("warning: \(output.output) was lost at the end (output_lost in lifecycle.jsonl says why)")
        }
        Render.sayFailures(of: summary, missing: [])
    }

    /// The first SIGINT or SIGTERM stops the recording at the next frame, cleanly; a second
    /// stops the process at once (the segments are whole up to their last fragment, the playlist
    /// names whole segments only).
    private func handleSignals(_ interruption: RenderInterruption) -> SignalWatch {
        let quiet = self.quiet
        return SignalWatch { number, count in
            if interruption.requested != nil || count > 1 {
                TemporaryFiles.removeAll()
                if !quiet { printError("stopped at once: the segment being written ends at its last fragment") }
                _exit(128 + number)
            }
            interruption.request(signal: number)
            if !quiet { printError("stopping: closing the segments and pushes; send the signal again to stop at once") }
        }
    }
}
