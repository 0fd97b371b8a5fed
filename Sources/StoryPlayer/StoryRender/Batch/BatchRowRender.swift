import Compositor
import Foundation
import StoryBase

/// One row's `render-stories render`, in a process of its own: a row that crashes, or a render
/// that fails, takes no other row with it. Its arguments are a `RenderInvocation` (the files
/// render's options name put into the row's folder, the row's values as `--set`), and what it
/// left says whether the row is complete (`BatchRowRecord`).
struct BatchRowRender: Sendable {
    let variant: BatchPlan.Variant
    let invocation: RenderInvocation
    /// The files the row's render writes: its summary, and each file an option names.
    let outputs: [String]
    let record: BatchRowRecord

    init(variant: BatchPlan.Variant, board: String, options: [String]) {
        self.variant = variant
        let placed = RenderInvocation.placingFiles(of: options, in: variant.folder)
        invocation = RenderInvocation(storyboard: board, output: variant.folder, options: ["--quiet"] + placed.options,
                                      values: variant.row.values)
        outputs = [(variant.folder as NSString).appendingPathComponent("summary.json")] + placed.files
        record = BatchRowRecord(values: variant.row.values, arguments: invocation.arguments, outputs: outputs)
    }

    func result(status: BatchRowStatus, seconds: Double, error: String?) -> BatchReport.RowResult {
        BatchReport.RowResult(row: variant.row.number, name: variant.name, status: status,
                              outputs: status == .done || status == .skipped || status == .failed
                                  ? outputs.filter { FileManager.default.fileExists(atPath: $0) } : [],
                              time: (seconds * 1000).rounded() / 1000, error: error, values: variant.row.values)
    }

    /// Starts the render, its messages into the row's `batch-row.log`; `done` is called with the
    /// row's result when it exits.
    func start(executable: String, done: @escaping @Sendable (BatchReport.RowResult) -> Void) throws -> Process {
        try OutputFolder.make(variant.folder)
        let log = (variant.folder as NSString).appendingPathComponent("batch-row.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = invocation.arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: log)
        let started = Date()
        let row = self
        process.terminationHandler = { process in
            done(row.result(of: RenderInvocation.Exit(process), seconds: Date().timeIntervalSince(started), log: log))
        }
        try process.run()
        return process
    }

    /// The row's result from how its render ended.
    private func result(of exit: RenderInvocation.Exit, seconds: Double, log: String) -> BatchReport.RowResult {
        if exit.rendered {
            // A story that could not be shown (its error card drawn) fails the row; the row is
            // then not complete, and a batch run again renders it again.
            if let failure = BatchRowOutcome.failure(in: variant.folder) {
                return result(status: .failed, seconds: seconds, error: failure)
            }
            try? record.write(in: variant.folder)
            return result(status: .done, seconds: seconds, error: nil)
        }
        switch exit {
        // A render the signal reached before it set up its own handling ended by it: stopped
        // all the same.
        case .interrupted, .killed(signal: SIGINT), .killed(signal: SIGTERM):
            return result(status: .interrupted, seconds: seconds, error: nil)
        default: break
        }
        let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let lastLine = said.split(separator: "\n").last.map(String.init)
        // Foundation's status of a process a signal ended is the signal's number.
        let status = if case .killed(let signal) = exit { signal } else { exit.status }
        return result(status: .failed, seconds: seconds, error: lastLine ?? "render exited \(status)")
    }
}
