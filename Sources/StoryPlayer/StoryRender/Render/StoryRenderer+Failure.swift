import Compositor
import Foundation

// MARK: - A render that fails half-way

extension StoryRenderer {
    /// Cleans up after a render that failed once its frames had begun (a full disk, a clip that
    /// cannot be finished), and returns the error to report, which says what the folder holds.
    ///
    /// Every output's temporary file is removed before the failure is reported, since the
    /// process may exit right after (no `.clip.mp4.…tmp` is left). The frames from the first one
    /// this render could not write on are removed: this render's written out of order after it,
    /// and the earlier render's, which would otherwise sit beside this one's under no summary.
    /// What is left is this render's frames from its first on, a prefix of it, and the message
    /// says so.
    func abandon(after error: RenderError, sinks: inout [any FrameSink], writer: FrameWriter,
                 previous: PreviousRender) -> RenderError {
        for index in sinks.indices { sinks[index].abandon() }
        writer.waitForQueuedFrames()
        // The writer's threads may have failed on a frame lower than the one the error was
        // noticed at: that one is named, and it is where this render's frames end.
        var reported = writer.failure.map(PNGFrames.error) ?? error
        let first = options.frameRange?.lowerBound ?? 0
        let end = writer.failure?.frame ?? writer.lastSubmitted.map { $0 + 1 } ?? first
        if options.writeFrames {
            StoryRenderer.removeFrames(in: options.outputFolder, from: end, before: options.frameRange?.upperBound)
        }
        reported.aftermath = folderAfterFailure(framesWritten: options.writeFrames ? first..<max(first, end) : nil,
                                                previous: previous)
        return reported
    }

    /// What a failed render leaves in its folder, in words: "out/board is not a finished render:
    /// it holds this render's frames 0-27 and no summary.json; the earlier render's summary.json,
    /// lifecycle.jsonl and clip.mp4 were removed before its first frame".
    func folderAfterFailure(framesWritten: Range<Int>?, previous: PreviousRender) -> String {
        let folder = options.outputFolder
        var holds: String
        switch framesWritten {
        case let frames? where frames.count == 1: holds = "this render's frame \(frames.lowerBound)"
        case let frames? where !frames.isEmpty: holds = "this render's frames \(frames.lowerBound)-\(frames.upperBound - 1)"
        case .some: holds = "no frame of this render"
        case nil: holds = "no frame of this render (--no-png)"
        }
        var said = "\(folder) is not a finished render: it holds \(holds) and no summary.json"
        if let removed = previous.removedNames {
            said += "; the earlier render's \(removed) \(previous.removed.count == 1 ? "was" : "were") removed before the first frame"
            if framesWritten != nil { said += ", and its frames after the failure" }
        }
        // A clip finished before another failed is whole, and this render's: the earlier one's
        // was removed before the first frame.
        let whole = options.outputFiles.map(\.path).filter { FileManager.default.fileExists(atPath: $0) }
        if !whole.isEmpty { said += "; finished whole: " + whole.joined(separator: ", ") }
        return said
    }
}
