import ArgumentParser
import Compositor
import Foundation
import StoryPlayer

/// What a render says when it is over, and the exit code that says it to a script.
extension Render {
    /// The progress line for a render of `board` with `options`. A job runner reading
    /// --progress json, and a user watching the bar, are told the frame count from the first
    /// line, even for a storyboard without a duration (counted ahead, without decoding) or a shard.
    func progressLine(for board: Storyboard, options: RenderOptions) -> ProgressLine {
        let style = ProgressLine.shownStyle(quiet ? .none : self.progress)
        var expected = options.frameRange?.count
        if expected == nil, style != .none, board.duration == nil {
            expected = try? StoryRenderer.countFrames(board)
        }
        return ProgressLine(style: style, expected: expected)
    }

    /// Says how the render ended: interrupted (exit 128 + the signal), what failed, the notices
    /// and what was rendered; with --strict, a failure exits 3.
    func sayOutcome(_ summary: RenderSummary, interruption: RenderInterruption, folder: String,
                    missing: [Storyboard.MissingFile]) throws {
        if let signal = interruption.requested, summary.interrupted {
            let frames = summary.frames == 1 ? "1 frame" : "\(summary.frames) frames"
            printError("interrupted: \(frames) written to \(folder); summary.json says \"interrupted\": true")
            throw ExitCode(128 + signal)
        } else if let signal = interruption.requested {
            // The signal came after the last frame, while the clips (a GIF's palette pass, the
            // MP4's end) were being finished: nothing was cut short, and saying it was (exit
            // 130, a summary said to hold "interrupted" that did not) misled. A second signal
            // still stops at once, without the clips.
            printError("note: signal \(signal) came after the last frame, while the clips were finished: every output is whole")
        }
        // What failed is said even with --quiet: it is what a quiet run is for.
        Render.sayFailures(of: summary, missing: missing)
        if quiet {
            if strict && summary.hasFailures { throw ExitCode(3) }
            return
        }
        // Missing files were said before the render, as warnings: once is enough.
        for notice in summary.notices where !missing.contains(where: { $0.description == notice }) { printError("note: \(notice)") }
        if !summary.lateFrames.isEmpty {
            printError("note: \(summary.lateFrames.count) frames were late and skipped (late_frames in summary.json)")
        }
        print("rendered \(summary.frames) frames to \(folder) in \(String(format: "%.2f", summary.wallSeconds)) s "
              + "(\(String(format: "%.1f", summary.framesPerSecond)) fps, \(summary.peakPlayersPhrase))")
        if strict && summary.hasFailures { throw ExitCode(3) }
    }
}
