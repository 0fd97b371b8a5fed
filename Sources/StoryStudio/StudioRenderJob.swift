import Foundation
import StoryPlayer
import Synchronization

/// The full render the page's Render button starts: `render-stories render …` as a child
/// process, the very command the page shows, so what the button makes is what that command
/// makes. Its `--progress json` lines become progress messages; Cancel sends it SIGINT, on
/// which the CLI finishes the frame in flight, writes its trace and removes every temporary
/// file (`TemporaryFiles`), as it does for a user's Ctrl-C.
final class StudioRenderJob: Sendable {
    /// The options the page chooses.
    struct Options: Sendable, Codable, Equatable {
        var overlay = true
        var mp4 = true
        /// Canvas size override, `WxH`, or nil for the storyboard's.
        var size: String?
    }

    struct Progress: Encodable {
        let type = "render"
        let state: String
        let frame: Int?
        let of: Int?
        let fps: Double?
        let eta_s: Double?
        let report: String?
        let mp4: String?
        let message: String?
    }

    private struct Running {
        var process: Process?
        var cancelled = false
    }

    let executable: String
    let boardPath: String
    /// The variant's values of the storyboard's parameters when the button is pressed, passed
    /// on as `--set`.
    let parameters: @Sendable () -> [String: String]
    let outputFolder: String
    let hub: StudioHub
    private let running = Mutex(Running())

    init(executable: String, boardPath: String, parameters: @escaping @Sendable () -> [String: String] = { [:] },
         outputFolder: String, hub: StudioHub) {
        self.executable = executable
        self.boardPath = boardPath
        self.parameters = parameters
        self.outputFolder = outputFolder
        self.hub = hub
    }

    var clipName: String { ((boardPath as NSString).lastPathComponent as NSString).deletingPathExtension + ".mp4" }

    /// The render the page's options ask for: the page writes its command in this order
    /// (studio.html), the values before the clip and the look.
    func invocation(_ options: Options) -> RenderInvocation {
        var closing: [String] = []
        if options.mp4 { closing += ["--mp4", (outputFolder as NSString).appendingPathComponent(clipName)] }
        if let size = options.size { closing += ["--size", size] }
        if !options.overlay { closing.append("--no-overlay") }
        return RenderInvocation(storyboard: boardPath, output: outputFolder, options: ["--report"], values: parameters(),
                                closingOptions: closing)
    }

    var isRunning: Bool { running.withLock { $0.process != nil } }

    /// Starts the render; false when one is already running.
    func start(_ options: Options) throws(StudioProblem) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = invocation(options).arguments + ["--progress", "json"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let lines = LineReader()
        let hub = self.hub, mp4 = options.mp4 ? clipName : nil
        errors.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            // End of file: Foundation would call again and again with nothing.
            if data.isEmpty { handle.readabilityHandler = nil }
            for line in lines.take(data) {
                guard let data = line.data(using: .utf8),
                      let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                      let frame = json["frame"] as? Int else {
                    if !line.isEmpty { lines.note(line) }
                    continue
                }
                hub.broadcast(Progress(state: "running", frame: frame, of: json["of"] as? Int, fps: json["fps"] as? Double,
                                       eta_s: json["eta_s"] as? Double, report: nil, mp4: nil, message: nil))
            }
        }
        process.terminationHandler = { [self] process in
            errors.fileHandleForReading.readabilityHandler = nil
            let cancelled = running.withLock { running -> Bool in
                running.process = nil
                return running.cancelled
            }
            let state = cancelled ? "cancelled" : RenderInvocation.Exit(process).rendered ? "done" : "failed"
            let finished = state == "done"
            hub.broadcast(Progress(state: state, frame: nil, of: nil, fps: nil, eta_s: nil,
                                   report: finished ? "/out/report.html" : nil,
                                   mp4: finished ? mp4.map { "/out/" + $0 } : nil,
                                   message: state == "failed" ? lines.noted.joined(separator: "\n") : nil))
        }
        return try running.withLock { running throws(StudioProblem) -> Bool in
            guard running.process == nil else { return false }
            do {
                try process.run()
            } catch {
                throw StudioProblem(.render, "cannot start \(executable)", cause: "\(error)")
            }
            running = Running(process: process, cancelled: false)
            hub.broadcast(Progress(state: "running", frame: 0, of: nil, fps: nil, eta_s: nil, report: nil, mp4: nil, message: nil))
            return true
        }
    }

    /// Asks the render to stop cleanly (SIGINT); true when one was running.
    func cancel() -> Bool {
        running.withLock { running -> Bool in
            guard let process = running.process, process.isRunning else { return false }
            running.cancelled = true
            process.interrupt()
            return true
        }
    }

    /// Waits for the render to end (the server is stopping): asked to stop first, unless it
    /// already was (`StudioServer.stop()` asks at once), since a second SIGINT would stop it at
    /// once without its clips.
    func stop() {
        if !running.withLock({ $0.cancelled }) { _ = cancel() }
        while isRunning { Thread.sleep(forTimeInterval: 0.02) }
    }
}

/// Cuts a pipe's bytes into lines, and keeps the last lines that were not progress.
final class LineReader: Sendable {
    private let state = Mutex<(pending: Data, noted: [String])>((Data(), []))

    func take(_ data: Data) -> [String] {
        state.withLock { state in
            state.pending.append(data)
            var lines: [String] = []
            while let end = state.pending.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: state.pending[state.pending.startIndex..<end], as: UTF8.self))
                state.pending.removeSubrange(state.pending.startIndex...end)
            }
            return lines
        }
    }

    func note(_ line: String) {
        state.withLock { state in
            state.noted.append(line)
            if state.noted.count > 20 { state.noted.removeFirst() }
        }
    }

    var noted: [String] { state.withLock { $0.noted } }
}
