import Compositor
import Foundation
import StoryPlayer

/// SIGINT and SIGTERM during a render: the first stops it at the next frame, a second at once.
extension Render {
    /// Stops the render at the next frame on SIGINT or SIGTERM: frames in flight are finished,
    /// temporary files removed, and summary.json says "interrupted". A second signal ends the
    /// process at once, after removing the temporary files still open (the MP4's, a frame's), so
    /// that no number of signals leaves one behind. Returns the watch, to cancel at the end.
    func handleSignals(_ interruption: RenderInterruption, folder: String) -> SignalWatch {
        // Finishing a clip after the last frame (a GIF's palette pass over every frame, a slow
        // preset's end) takes seconds: a user who pressed Ctrl-C is told what is happening and
        // how to stop at once, then what that left out.
        let clipPaths = exportFiles.map(\.path)
        let clips = clipPaths.map { ($0 as NSString).lastPathComponent }
        let speaks = !quiet && !clips.isEmpty
        // A file may be finished between the two signals: the second names only those that
        // are not (an audit's MP4 was whole on disk while the message said it was not written),
        // every one of them: the clips, the pictures, the trace, the summary and the page.
        let endPaths = clipPaths + [contactSheet, timeline].compactMap { $0 }
            + (["lifecycle.jsonl", "summary.json"] + (report ? [ReportPage.fileName] : [])).map { (folder as NSString).appendingPathComponent($0) }
        TemporaryFiles.watch(endPaths)
        // On a terminal the progress bar's line has no end yet.
        let lineBreak = isatty(STDERR_FILENO) == 1 ? "\n" : ""
        return SignalWatch { number, count in
            // Two signals close together may reach the handler as one, with a count of two.
            if interruption.requested != nil || count > 1 {
                TemporaryFiles.removeAll()
                if !quiet { printError(lineBreak + Render.stoppedAtOnce(endPaths, clips: clipPaths)) }
                _exit(128 + number)
            }
            interruption.request(signal: number)
            if speaks {
                // A job runner's SIGTERM is not a key a user pressed.
                let again = number == SIGINT ? "press Ctrl-C again" : "send SIGTERM again"
                printError(lineBreak + "stopping at the next frame, then finishing \(clips.joined(separator: ", ")) from the frames drawn; "
                           + "\(again) to stop at once without them")
            }
        }
    }
}
