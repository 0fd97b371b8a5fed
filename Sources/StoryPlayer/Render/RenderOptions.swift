import Foundation
import Compositor

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
    /// Write frame PNGs (false: only the other outputs).
    public var writeFrames = true
    /// Render only these frames (a shard): byte-identical to the same frames of a full render.
    public var frameRange: Range<Int>?
    /// Also write an MP4 clip with the mixed sound.
    public var clip: ClipOptions?
    /// Checked before each frame: once requested, the render stops there and says so.
    public var interruption: RenderInterruption?

    /// Refuses, before any work, what a render of `storyboard` with these options cannot do: a
    /// shard (`frameRange`) needs the virtual clock, because a realtime render's frames depend
    /// on when it ran and cannot be split into byte-identical pieces.
    public func check(for storyboard: Storyboard) throws(RenderError) {
        guard frameRange != nil else { return }
        switch (clock, storyboard.clock) {
        case (.realtime?, _):
            throw RenderError(.options, "--frames needs the virtual clock: a realtime render cannot be split")
        case (nil, .realtime):
            throw RenderError(.options, "--frames needs the virtual clock: this storyboard asks for realtime")
        default:
            return
        }
    }

    /// Refuses, before any work, an output file that could not be written at the end: its
    /// folder must exist and take a file. Messages name the path as the user gave it.
    public func checkOutputPaths() throws(RenderError) {
        let files: [(String, String?)] = [("contact sheet", contactSheet), ("timeline", timeline), ("MP4", clip?.path)]
        for (what, path) in files {
            guard let path else { continue }
            let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
            // The output folder itself is made before anything is written into it.
            if (folder as NSString).standardizingPath == (outputFolder as NSString).standardizingPath { continue }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw RenderError(.output, "cannot write the \(what) \(path): the folder \(folder) does not exist")
            }
            let probe = (folder as NSString).appendingPathComponent(".write-test-\(getpid())")
            guard FileManager.default.createFile(atPath: probe, contents: Data()) else {
                throw RenderError(.output, "cannot write the \(what) \(path): the folder \(folder) is not writable")
            }
            try? FileManager.default.removeItem(atPath: probe)
        }
    }

    public init(outputFolder: String) {
        self.outputFolder = outputFolder
    }
}
