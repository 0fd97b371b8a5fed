import Foundation
import Synchronization

/// How `render` reports progress on stderr.
enum ProgressStyle: String, CaseIterable {
    /// A one-line bar, redrawn in place, only when stderr is a terminal.
    case bar
    /// One JSON object per second, for job runners: {"frame": 120, "of": 360, "fps": 41.2, "eta_s": 5.8}.
    case json
    /// Nothing.
    case none
}

/// Progress on stderr: frames done and planned, frames per second and time left.
final class ProgressLine: Sendable {
    let style: ProgressStyle
    private let started = Date()
    private struct Drawn {
        var lastDraw = Date.distantPast
        var drewBar = false
        /// Set when stderr stopped taking lines (its reader closed the pipe): progress stops,
        /// the render goes on.
        var readerGone = false
    }
    private let drawn = Mutex(Drawn())

    /// The frames the render will write, when the render itself does not say (a storyboard
    /// without a duration, counted ahead by the CLI; a shard's range).
    let expected: Int?

    init(style: ProgressStyle, expected: Int? = nil) {
        self.style = ProgressLine.shownStyle(style)
        self.expected = expected
    }

    /// The style that is drawn: the bar is for people, never written into a log or a pipe.
    static func shownStyle(_ style: ProgressStyle) -> ProgressStyle {
        style == .bar && isatty(STDERR_FILENO) == 0 ? .none : style
    }

    /// The last line of `--progress json`: {"done": true, "frames": N, "wall_s": W, "fps": F,
    /// "interrupted": false}, so a job runner knows the render ended and how.
    func finish(frames: Int, wallSeconds: Double, interrupted: Bool) {
        guard style == .json else { return }
        let fps = wallSeconds > 0 ? Double(frames) / wallSeconds : 0
        send(String(format: "{\"done\": true, \"frames\": %d, \"wall_s\": %.2f, \"fps\": %.1f, \"interrupted\": %@}\n",
                    frames, wallSeconds, fps, interrupted ? "true" : "false"))
    }

    /// A line, unless the reader has gone.
    private func send(_ line: String) {
        drawn.withLock { drawn in
            guard !drawn.readerGone else { return }
            drawn.readerGone = !StandardError.write(line)
        }
    }

    var isEnabled: Bool { style != .none }

    func show(done: Int, total: Int?) {
        let total = total ?? expected
        drawn.withLock { drawn in
            guard !drawn.readerGone else { return }
            let now = Date()
            let interval = style == .json ? 1.0 : 0.1
            guard now.timeIntervalSince(drawn.lastDraw) >= interval else { return }
            drawn.lastDraw = now
            let elapsed = now.timeIntervalSince(started)
            let fps = elapsed > 0 ? Double(done) / elapsed : 0
            let eta = total.flatMap { total in fps > 0 ? Double(max(0, total - done)) / fps : nil }
            switch style {
            case .json:
                let of = total.map(String.init) ?? "null"
                let etaText = eta.map { String(format: "%.1f", $0) } ?? "null"
                drawn.readerGone = !StandardError.write(String(format: "{\"frame\": %d, \"of\": %@, \"fps\": %.1f, \"eta_s\": %@}\n",
                                                                   done, of, fps, etaText))
            case .bar:
                drawn.drewBar = true
                var line = "frame \(done)"
                if let total, total > 0 {
                    let width = 24
                    let filled = min(width, done * width / total)
                    line = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
                        + "\(done)/\(total)"
                }
                line += String(format: "  %.1f fps", fps)
                if let eta { line += String(format: "  ETA %.0fs", eta) }
                drawn.readerGone = !StandardError.write("\r\u{1B}[K" + line)
            case .none:
                break
            }
        }
    }

    func clear() {
        drawn.withLock { drawn in
            guard drawn.drewBar, !drawn.readerGone else { return }
            StandardError.write("\r\u{1B}[K")
        }
    }
}
