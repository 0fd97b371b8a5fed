import Compositor
import Foundation
import StoryBase
import StoryEncode
import StoryMedia
import StoryModel

/// Settings of a render that are not in the storyboard.
public struct RenderOptions: Sendable {
    public var outputFolder: String
    public var png = PNGOptions()
    /// Draw the progress segments over the stories (`--no-overlay` leaves them out).
    public var overlay = true
    /// Draw only what lies over the stories (their layers, progress segments and captions) over
    /// transparency, for compositing over footage elsewhere (`--overlay-only`): each story's
    /// picture, poster or card is left out, and so are the background and the backdrop. The
    /// stories play and decode as in any render, so the trace is the same.
    public var overlayOnly = false
    public var limits = DecodeLimits()
    /// Rasterizer threads, and as many PNG encoders; defaults to one per core.
    public var threads = Rasterizer.defaultThreadCount
    /// The thread counts a render accepts. Each thread also lets one more frame be in flight
    /// (8 MB at 1080x1920), so the bound is what keeps a mistyped count from exhausting memory.
    public static let threadCounts = 1...256
    /// Called after each frame with (frames done, frames planned or nil when open-ended).
    public var progress: (@Sendable (Int, Int?) -> Void)?
    /// Overrides the storyboard's `clock`.
    public var clock: PlaybackClock?
    /// Frames the realtime clock skips as late whatever the time (tests: a late frame cannot
    /// be had on demand from a machine's load).
    package var framesTakenAsLate: (@Sendable (Int) -> Bool)?
    /// Whether the virtual clock foresees where plays end, so that no picture is decoded past
    /// them (`StoryRenderer.foreseePlayEnds`). Off only in tests, to compare the frames.
    package var foreseesPlayEnds = true
    /// Write a contact sheet of evenly spaced frames here.
    public var contactSheet: String?
    public var sheetColumns = ContactSheet.defaultColumns
    public var sheetFrames = RenderOptions.defaultSheetFrames
    public static let defaultSheetFrames = 24
    /// Write the lifecycle timeline picture here.
    public var timeline: String?
    /// Write `report.html` in the output folder: the frames in a player beside the lifecycle and
    /// the summary, made from what the render holds in memory.
    public var report = false
    /// Write frame PNGs (false: only the other outputs).
    public var writeFrames = true
    /// Render only these frames (a shard): byte-identical to the same frames of a full render.
    public var frameRange: Range<Int>?
    /// Also write an MP4 clip with the mixed sound (`--mp4`; the report's player plays it).
    public var clip: ClipOptions?
    /// Also write these files (`--webm`, `--gif`, `--webp`, `--apng`).
    public var exports: [ClipOptions] = []
    /// Every encoded file: the MP4, then the others.
    public var clips: [ClipOptions] { (clip.map { [$0] } ?? []) + exports }
    /// The platform whose safe area captions keep inside (`--safe-zones`); nil: the platform's
    /// (`platform`), else 20 % above the bottom (`CaptionLayout`).
    public var safeZones: PlatformSafeZones?
    /// The platform the render is for (`--preset`, which also sets `clip`): its safe area
    /// places the captions unless `safeZones` is given (which wins, with a notice), and the
    /// render gives a notice for each element `check-layout` would report in its zones.
    public var platform: PlatformPreset?
    /// Where captions are placed, and whose guides `burnGuides` draws: `safeZones`, else the
    /// platform's.
    public var captionZones: PlatformSafeZones? { safeZones ?? platform?.safeZones }
    /// Draw `safeZones`' guides into every frame and the MP4 (`--burn-guides`): otherwise an
    /// export never shows them.
    public var burnGuides = false
    /// Bring the MP4's sound to this loudness (`--loudness`): needs `clip`, and a whole render.
    public var loudness: LoudnessTarget?
    /// Checked before each frame: once requested, the render stops there and says so.
    public var interruption: RenderInterruption?
    /// A recording (`record`): its live outputs in place of the files above.
    public var record: RecordOptions?

    /// Refuses, before any work, what a render of `storyboard` with these options cannot do: a
    /// shard (`frameRange`) needs the virtual clock, because a realtime render's frames depend
    /// on when it ran and cannot be split into byte-identical pieces; a video (MP4, WebM) needs
    /// an even size; a GIF, WebP or APNG cannot be made in shards (`ExportFormat.joinsFromShards`).
    /// Nothing is created before this check.
    public func check(for storyboard: Storyboard) throws(RenderError) {
        let width = storyboard.canvas.width, height = storyboard.canvas.height
        for clip in clips where !clip.format.isAnimation && (width % 2 != 0 || height % 2 != 0) {
            throw RenderError(.options, "\(clip.format.flag) \(clip.path): \(clip.format.kind == "MP4" ? "an" : "a") \(clip.format.kind) needs an even width and height, "
                              + "not \(width)x\(height) (give --size)")
        }
        if burnGuides && captionZones == nil {
            throw RenderError(.options, "--burn-guides needs --safe-zones (or a --preset with safe zones): which platform's guides to draw")
        }
        if loudness != nil && clip == nil {
            throw RenderError(.options, "--loudness needs --mp4: it sets the loudness of the MP4's sound")
        }
        guard frameRange != nil else { return }
        if loudness != nil {
            throw RenderError(.options, "--loudness cannot be used with --frames: loudness is measured over the whole clip, "
                              + "and a shard holds only part of it")
        }
        for clip in clips where !clip.format.joinsFromShards {
            throw RenderError(.options, "\(clip.format.flag) \(clip.path) with --frames: \(clip.format.kind == "APNG" ? "an" : "a") "
                              + "\(clip.format.kind) cannot be joined from shards (one palette, one animation, made of every "
                              + "frame); render it without --frames (MP4 and WebM shards can be joined)")
        }
        switch (clock, storyboard.clock) {
        case (.realtime?, _):
            throw RenderError(.options, "--frames needs the virtual clock: a realtime render cannot be split")
        case (nil, .realtime):
            throw RenderError(.options, "--frames needs the virtual clock: this storyboard asks for realtime")
        default:
            return
        }
    }

    /// The output files beside the folder, by what they are called in messages.
    var outputFiles: [(what: String, path: String)] {
        [("contact sheet", contactSheet), ("timeline", timeline)].compactMap { what, path in path.map { (what, $0) } }
            + clips.map { ($0.format.kind, $0.path) }
    }

    /// Makes, before any work, the folders of the output files (contact sheet, timeline, MP4 and the other encoded files),
    /// as the output folder is made: every output follows one rule. A path that cannot be
    /// written is refused now, not at the end; messages name the path as the user gave it and
    /// say why.
    public func checkOutputPaths() throws(RenderError) {
        for (what, path) in outputFiles {
            do {
                try OutputFolder.make(forFile: path)
            } catch {
                throw RenderError(.output, "cannot write the \(what) \(path)", cause: error)
            }
            // A folder where the file should go would be found only when the finished file is
            // moved into place, after the whole render.
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                throw RenderError(.output, "cannot write the \(what) \(path)", cause: ErrorText("\(path) is a folder, not a file"))
            }
        }
    }

    public init(outputFolder: String) {
        self.outputFolder = outputFolder
    }
}
