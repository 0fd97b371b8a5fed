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

    @OptionGroup var parameters: ParameterArguments

    @Flag(help: "Draw no UI over the stories.")
    var noOverlay = false

    @Flag(help: "Draw only what lies over the stories (text and sticker layers, progress segments, captions) over transparency, for compositing over footage in an editor: the stories' pictures, the background and the backdrop are left out, and the layers turn with the cube as they would on the stories. Keeps alpha as --alpha does: the PNG frames, --mov (ProRes 4444) and --webm (VP9) carry it; --mp4, --gif, --webp and --apng cannot, and are refused.")
    var overlayOnly = false

    @Option(help: ArgumentHelp("Place captions inside this platform's safe area: reels (above the bottom 35 %, 6 % in at the sides), stories (above the bottom 20 %) or tiktok (above the bottom 20 %, left of the right rail). Default: the safe area of a platform --preset (reels, stories, tiktok; shorts has none published), else 20 % above the bottom, 6 % in at the sides. Given with a --preset for another platform, it wins, with a warning. Its guides are not drawn unless --burn-guides.", valueName: "NAME"))
    var safeZones: PlatformSafeZones?

    @Flag(help: "Also draw the --safe-zones guides (or a platform --preset's) as a translucent tint with an outline into every frame and the MP4.")
    var burnGuides = false

    @OptionGroup var background: BackgroundArguments

    @OptionGroup var png: PNGArguments

    @Option(parsing: .unconditional, help: "Rasterizer threads, and as many PNG encoders, \(RenderOptions.threadCounts.spoken). Default: one per core.")
    var threads: Int?

    @Option(help: "virtual: frame n shows n / fps, deterministic. realtime: timeline time is wall-clock time, as on a phone; overrides the storyboard's clock.")
    var clock: PlaybackClock?

    @Option(help: ArgumentHelp("Also write an MP4 (H.264, or HEVC with --codec hevc) with the stories' sound mixed in (AAC, 48 kHz stereo); while two stories share the screen, each is heard by its share.", valueName: "file.mp4"))
    var mp4: String?

    @Option(help: ArgumentHelp("The --mp4's video codec: h264 (libx264) or hevc (libx265, tagged hvc1). Default: h264.", valueName: "codec"))
    var codec: MP4Codec?

    @Option(help: ArgumentHelp("Also write a WebM (VP9, or AV1 with --webm-codec av1) with the sound as Opus.", valueName: "file.webm"))
    var webm: String?

    @Option(help: ArgumentHelp("The --webm's video codec: vp9 (libvpx-vp9) or av1 (SVT-AV1, where this FFmpeg has it). Default: vp9.", valueName: "codec"))
    var webmCodec: WebMCodec?

    @Option(help: ArgumentHelp("Also write a QuickTime movie in ProRes 422 HQ, or ProRes 4444 keeping the frames' alpha with --alpha, with the sound as 32-bit float PCM: for an editor to cut or composite.", valueName: "file.mov"))
    var mov: String?

    @Option(help: ArgumentHelp("Also write a GIF, its palette made from the frames (palettegen stats_mode=diff, paletteuse with sierra2_4a dithering), at --anim-width and --anim-fps. No sound.", valueName: "file.gif"))
    var gif: String?

    @Option(help: ArgumentHelp("Also write an animated WebP (libwebp, lossy) at --anim-width and --anim-fps. No sound.", valueName: "file.webp"))
    var webp: String?

    @Option(help: ArgumentHelp("Also write an animated PNG at --anim-width and --anim-fps. No sound.", valueName: "file.apng"))
    var apng: String?

    @Option(help: ArgumentHelp("Width of --gif, --webp and --apng (the height follows the canvas; never wider than it).", valueName: "pixels"))
    var animWidth = ClipOptions.defaultAnimationWidth

    @Option(help: ArgumentHelp("Frame rate of --gif, --webp and --apng (\(ClipOptions.animationRates.spoken)).", valueName: "fps"))
    var animFps = ClipOptions.defaultAnimationFPS

    @Flag(help: "Write no PNG frames (with --mp4, --webm, --mov, --gif, --webp or --apng: those files only).")
    var noPng = false

    @Option(parsing: .unconditional, help: "Constant rate factor of --mp4 and --webm, on each codec's scale (lower: better and larger). Default: 20 for H.264, 24 for HEVC, 32 for VP9 (0 with --alpha, which keeps its alpha within a level), 35 for AV1. ProRes (--mov) has none: its profile sets its quality.")
    var crf: Int?

    @Option(help: ArgumentHelp("A platform's limits for --mp4: \(PlatformPreset.names.joined(separator: ", ")). Sets the canvas (1080x1920) and frame rate (so not with --size or --fps), H.264 High, closed GOPs, the bit-rate cap and the AAC sound; check any file against them with check-preset. Captions are placed inside the platform's safe area (shorts: none published, the default), and the render warns of text check-layout would find in its zones. (The x264 speed names given here are still taken, with a note: they are --x264-preset now.)", valueName: "platform"))
    var preset: String?

    @Option(help: "x264's (and x265's) speed preset for --mp4 (ultrafast … veryslow).")
    var x264Preset = ClipOptions.defaultPreset

    // Unconditional: in "--loudness -14" the "-14" is the value, not a flag.
    @Option(parsing: .unconditional,
            help: ArgumentHelp("Bring the MP4's sound to this integrated loudness (EBU R128) with one gain, its true peak at most -1 dBTP: a number of LUFS from -70 to -5, or ebu (-23). Needs --mp4; summary.json reports the loudness measured before and after.", valueName: "LUFS|ebu"))
    var loudness: String?

    // Unconditional: in "--frames -1..3" the "-1..3" is the value (and wrong), not a flag.
    @Option(parsing: .unconditional,
            help: ArgumentHelp("Render only frames A to B-1 (a shard), byte-identical to the same frames of a full render; also A.. (to the end), ..B (from the start) or A (one frame). The trace covers only the range (check it with --shard; join shards with merge).", valueName: "A..B"))
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

    @Option(help: ArgumentHelp("Then compare the frames and trace with this golden render's folder, as compare does (exit 1 when they differ; compare.json written beside the frames). Takes compare's --min-ssim, --min-psnr, --max-changed-frames, --region and --ignore-trace-field.", valueName: "dir"))
    var compareTo: String?

    @OptionGroup(title: "Comparing with --compare-to") var comparison: ComparisonArguments

    func run() throws {
        // SVT-AV1 (--webm-codec av1) prints its banner to stderr at its default log level
        // (info); --quiet prints errors only, and SVT_LOG=1 is SVT-AV1's "errors". A level the
        // user set is kept.
        if quiet { setenv("SVT_LOG", "1", 0) }
        let path = try StoryboardFile.resolve(storyboard)
        let platform = preset.flatMap(PlatformPreset.named)
        if let preset, platform == nil {
            printError("note: --preset \(preset) is x264's speed preset, which is --x264-preset now; --preset names a platform (\(PlatformPreset.names.joined(separator: ", ")))")
        }
        let board = try loadBoard(path, platform: platform)
        let missing = try checkBeforeRendering(board)
        let folder = output ?? "out/" + ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        if let compareTo { try refuseComparingWithItself(folder, golden: compareTo) }
        var options = try renderOptions(for: board, folder: folder, platform: platform)
        let interruption = RenderInterruption()
        options.interruption = interruption
        let signals = handleSignals(interruption, folder: folder)
        defer { signals.cancel() }
        let progress = progressLine(for: board, options: options)
        if progress.isEnabled {
            options.progress = { @Sendable done, total in progress.show(done: done, total: total) }
        }
        let summary: RenderSummary
        do {
            summary = try StoryRenderer(storyboard: board, options: options).run()
        } catch {
            progress.clear()
            printError("error: \(error)")
            throw ExitCode(1)
        }
        progress.clear()
        progress.finish(frames: summary.frames, wallSeconds: summary.wallSeconds, interrupted: summary.interrupted)
        try sayOutcome(summary, interruption: interruption, folder: folder, missing: missing)
        if let compareTo { try compare(folder, with: compareTo) }
    }

    /// A render into its golden folder (or one inside the other) would replace the golden
    /// frames, then compare them with themselves and pass: a usage error (exit 2).
    private func refuseComparingWithItself(_ folder: String, golden: String) throws {
        func resolved(_ path: String) -> String {
            let full = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
            return full.hasSuffix("/") ? full : full + "/"
        }
        let output = resolved(folder), kept = resolved(golden)
        guard output.hasPrefix(kept) || kept.hasPrefix(output) else { return }
        printError("error: --compare-to \(golden) is the output folder \(folder) (or holds it): the render would replace the golden frames")
        throw ExitCode(2)
    }

    /// `--compare-to`: the render just written against the golden one, said as `compare` says
    /// it, `compare.json` beside the frames; exit 1 when they differ.
    private func compare(_ folder: String, with golden: String) throws {
        let report: ComparisonReport
        do {
            ProcessMemory.reuseFreedBuffers()
            report = try RenderComparison.run(golden, folder, options: comparison.options)
            try report.write(to: folder)
        } catch {
            printError("error: --compare-to: \(error)")
            throw ExitCode(2)
        }
        if !quiet || !report.passed { print(report.text()) }
        if !report.passed { throw ExitCode(1) }
    }

    /// A typo in a file name is named now, not found when its story fails. The story still
    /// fails with its card and the render goes on, unless --strict, which stops here (exit 2).
    /// A captions file that is there but cannot be read is a storyboard error (exit 2), and so
    /// is a drag never released in a board with no duration (an hour of frames otherwise).
    /// Returns the missing files, said once.
    private func checkBeforeRendering(_ board: Storyboard) throws -> [Storyboard.MissingFile] {
        let missing = board.missingLocalFiles
        for file in missing { printError("\(strict ? "error" : "warning"): \(file)") }
        if strict && !missing.isEmpty { throw ExitCode(2) }
        try board.checkCaptions()
        try board.checkFingersLift()
        return missing
    }
}

extension Render {
    /// The stories and participants that failed, each once. A missing local file was named
    /// before the render, with its JSON path: once is enough (summary.json and the trace still
    /// list the failure). A story that failed each time it was shown says each error once, with
    /// how many times.
    static func sayFailures(of summary: RenderSummary, missing: [Storyboard.MissingFile]) {
        for story in summary.failedStories {
            let errors = story.errors.filter { error in !missing.contains { error.contains($0.file) } }
            guard !errors.isEmpty else { continue }
            var distinct: [String] = []
            for error in errors where !distinct.contains(error) { distinct.append(error) }
            let counted = distinct.map { error in
                let times = errors.filter { $0 == error }.count
                return times == 1 ? error : "\(error) (\(times) times)"
            }
            printError("story \(story.id) failed: \(counted.joined(separator: "; "))")
        }
        for failure in summary.failedParticipants where !missing.contains(where: { failure.error.contains($0.file) }) {
            printError("participant \(failure.participant) of \(failure.story) failed: \(failure.error)")
        }
    }

    /// What a second signal left out: every file of `paths` (the files a render writes at its
    /// end) not in place, and the clips that were.
    static func stoppedAtOnce(_ paths: [String], clips: [String]) -> String {
        let name = { (path: String) in (path as NSString).lastPathComponent }
        let unwritten = paths.filter { !TemporaryFiles.wasPlaced($0) }.map(name)
        let finished = clips.filter(TemporaryFiles.wasPlaced).map(name)
        let listed = unwritten.count < 2 ? unwritten.joined()
            : unwritten.dropLast().joined(separator: ", ") + " and " + unwritten.last!
        var said = unwritten.isEmpty ? "stopped at once: every file was written" : "stopped at once: \(listed) not written"
        if !finished.isEmpty { said += "; \(finished.joined(separator: ", ")) finished before, from the frames drawn" }
        return said
    }

    /// The encoded files asked for, by flag, each with its format.
    var exportFiles: [(flag: String, path: String, format: ExportFormat)] {
        let files: [(String, String?, ExportFormat)] = [
            ("--mp4", mp4, codec == .hevc ? .mp4HEVC : .mp4H264),
            ("--webm", webm, webmCodec == .av1 ? .webmAV1 : .webmVP9), ("--mov", mov, .movProRes),
            ("--gif", gif, .gif), ("--webp", webp, .webp), ("--apng", apng, .apng),
        ]
        return files.compactMap { flag, path, format in path.map { (flag, $0, format) } }
    }
}

/// `--codec`: the MP4's video codec.
enum MP4Codec: String, ExpressibleByArgument, CaseIterable {
    case h264, hevc
}

/// `--webm-codec`: the WebM's video codec.
enum WebMCodec: String, ExpressibleByArgument, CaseIterable {
    case vp9, av1
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
