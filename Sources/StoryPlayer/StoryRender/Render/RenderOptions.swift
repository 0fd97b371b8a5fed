import Compositor
import Foundation
import StoryMedia
import StoryModel

/// Settings of a render that are not in the storyboard.
public struct RenderOptions: Sendable {
    public var outputFolder: String
    public var png = PNGOptions()
    /// Draw UI elements over the stories (none yet; later issues add them).
    public var overlay = true
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
    /// Also write an MP4 clip with the mixed sound.
    public var clip: ClipOptions?
    /// Bring the MP4's sound to this loudness (`--loudness`): needs `clip`, and a whole render.
    public var loudness: LoudnessTarget?
    /// Checked before each frame: once requested, the render stops there and says so.
    public var interruption: RenderInterruption?

    /// Refuses, before any work, what a render of `storyboard` with these options cannot do: a
    /// shard (`frameRange`) needs the virtual clock, because a realtime render's frames depend
    /// on when it ran and cannot be split into byte-identical pieces; an MP4 needs an even size.
    /// Nothing is created before this check.
    public func check(for storyboard: Storyboard) throws(RenderError) {
        if let clip, storyboard.canvas.width % 2 != 0 || storyboard.canvas.height % 2 != 0 {
            throw RenderError(.options, "--mp4 \(clip.path): an MP4 needs an even width and height, "
                              + "not \(storyboard.canvas.width)x\(storyboard.canvas.height) (give --size)")
        }
        if loudness != nil && clip == nil {
            throw RenderError(.options, "--loudness needs --mp4: it sets the loudness of the MP4's sound")
        }
        guard frameRange != nil else { return }
        if loudness != nil {
            throw RenderError(.options, "--loudness cannot be used with --frames: loudness is measured over the whole clip, "
                              + "and a shard holds only part of it")
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
        [("contact sheet", contactSheet), ("timeline", timeline), ("MP4", clip?.path)].compactMap { what, path in
            path.map { (what, $0) }
        }
    }

    /// Makes, before any work, the folders of the output files (contact sheet, timeline, MP4),
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
