import ArgumentParser
import Compositor
import Foundation
import StoryPlayer
import Synchronization

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render one storyboard once for each row of data: a variant a row, each into a folder of its own.",
        discussion: """
        The storyboard declares its "parameters"; each row of --data gives their values (a CSV's \
        columns, or a JSON object's keys, named as the parameters; other columns are ignored), as \
        --set would. Every row is checked first: a missing, unknown or mistyped value is an error \
        naming the row and the parameter's JSON path (exit 2), before any frame. Then each row is \
        rendered by `render-stories render` into DIR/<name>/ (the row's number, 0001…, or its \
        --name-from column), up to --jobs at once, with every option given after the batch's own \
        (--mp4 clip.mp4 writes DIR/<name>/clip.mp4). A row whose render fails (a story that could \
        not be shown, an error) is reported and the others go on. DIR/batch.json lists each row: \
        its status (done, failed, skipped, interrupted, not-run), outputs, seconds and error. \
        Run again, a batch passes over the rows it finished before with the same values and \
        options (--force renders them again). Ctrl-C stops every render at its next frame, \
        finishes nothing half-way and leaves no temporary file; batch.json says what was done. \
        Exit 0 when every row is done, 3 when a row failed, 2 for bad data.

        Split over machines (scripts/render-slurm.sh --data does this on Slurm): each part \
        renders --rows A-B into the same DIR and reports them in DIR/batch-rows-A-B.json; then \
        --merge joins the parts into DIR/batch.json (a row no part reported is not-run) and exits \
        as a whole batch would. --check checks every row and prints how many there are.
        """
    )

    @Argument(help: "The storyboard JSON file, with its \"parameters\".")
    var storyboard: String

    @Option(help: ArgumentHelp("The rows: a .csv with a header of parameter names, a .json array of objects, or .jsonl (an object a line).", valueName: "file"))
    var data: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The batch's folder: DIR/<row>/ for each row, and DIR/batch.json (not needed with --check).", valueName: "dir"))
    var output: String?

    @Option(help: ArgumentHelp("Name each row's folder by this column's value (letters, digits, . _ - kept) instead of its number.", valueName: "column"))
    var nameFrom: String?

    @Option(help: "Rows rendered at once. Default: one per core.")
    var jobs: Int?

    @Flag(help: "Render every row, also those a run before finished.")
    var force = false

    @Option(help: ArgumentHelp("Render only these rows (numbered from 1, as the data lists them): one part of a batch split over machines, reported in DIR/batch-rows-A-B.json.", valueName: "A-B"))
    var rows: RowRange?

    @Flag(help: "Render nothing: join the parts' reports (DIR/batch-rows-*.json) into DIR/batch.json.")
    var merge = false

    @Flag(help: "Render nothing: check every row as the batch would before its first frame (its values, and the files it names) and print the number of rows.")
    var check = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors and the last line.")
    var quiet = false

    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("render's options for every row (--mp4 clip.mp4, --preset reels, --loudness -14, --gif a.gif, --set name=value, …): file names are inside each row's folder.", valueName: "render options"))
    var renderOptions: [String] = []

    /// This program, which each row's render runs again.
    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// render's options that name a file, which each row writes into its own folder.
    static let fileOptions = ["--mp4", "--webm", "--gif", "--webp", "--apng", "--contact-sheet", "--timeline"]
    /// render's options a batch sets itself.
    static let ownOptions = ["--output", "-o", "--frames", "--quiet", "-q", "--progress"]

    func validate() throws {
        if merge && (rows != nil || check) { throw ValidationError("--merge joins the parts' reports; give it without --rows or --check") }
        if let jobs, !(1...64).contains(jobs) { throw ValidationError("--jobs must be 1 to 64") }
        if output == nil && !check { throw ValidationError("give --output DIR: the batch's folder, a folder for each row in it") }
        guard FileManager.default.fileExists(atPath: storyboard) else { throw ValidationError("no such file \(storyboard)") }
        guard FileManager.default.fileExists(atPath: data) else { throw ValidationError("--data \(data): no such file") }
        for (index, option) in renderOptions.enumerated() {
            let name = option.split(separator: "=", maxSplits: 1).first.map(String.init) ?? option
            if Batch.ownOptions.contains(name) {
                throw ValidationError("\(name) is the batch's to set: each row renders into DIR/<row>/, quietly")
            }
            if Batch.fileOptions.contains(name) {
                let value = option.contains("=") ? String(option.split(separator: "=", maxSplits: 1)[1])
                    : index + 1 < renderOptions.count ? renderOptions[index + 1] : ""
                if value.hasPrefix("/") || value.contains("..") {
                    throw ValidationError("\(name) \(value): give a file name, which each row writes into its own folder")
                }
            }
        }
        // The rows' options are render's: a mistake in them is one usage error now, not a
        // failure in every row.
        do {
            _ = try Render.parse([storyboard, "--output", "x"] + renderOptions)
        } catch {
            throw ValidationError("render's options: \(Render.message(for: error))")
        }
    }

    func run() throws {
        let started = Date()
        let table: BatchData
        do {
            table = try BatchData(contentsOf: data)
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        // Thrown as it is: the root command prints each of its errors on a line of its own, and
        // exits 2.
        let plan = try BatchPlan(board: storyboard, data: table, output: output ?? ".", nameFrom: nameFrom,
                                 common: ParameterArguments.values(in: renderOptions), checking: rows.map { $0.lower...$0.upper },
                                 verifying: check)
        if let rows, !rows.fits(plan.variants.count) {
            printError("error: --rows \(rows): the data has \(plan.variants.count) rows")
            throw ExitCode(2)
        }
        if check {
            print(plan.variants.count)
            return
        }
        // validate() requires it but for --check.
        guard let output else { throw ValidationError("give --output DIR") }
        if merge {
            try mergeParts(of: plan, in: output)
            return
        }
        let variants = rows.map { range in plan.variants.filter { range.contains($0.row.number) } } ?? plan.variants
        let reportName = rows.map { "batch-rows-\($0.lower)-\($0.upper).json" } ?? "batch.json"
        try OutputFolder.make(output)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let jobs = min(self.jobs ?? cores, variants.count)
        // Each render draws with cores ÷ jobs threads, unless told: jobs × cores threads would
        // only take turns.
        let threads = renderOptions.contains { $0 == "--threads" || $0.hasPrefix("--threads=") } ? [] : ["--threads", String(max(1, cores / jobs))]
        let runs = variants.map { variant in BatchRun(variant: variant, board: storyboard, options: renderOptions + threads) }
        let shared = BatchShared(total: runs.count)
        let progress = BatchProgress(quiet: quiet)
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                guard shared.interruption.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing).exchanged else { return }
                // Each render stops at its next frame and removes its temporary files; no new
                // row starts.
                shared.state.withLock { $0.running.values.forEach { kill($0, SIGINT) } }
            }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }

        var results: [BatchReport.RowResult] = []
        let finished = DispatchSemaphore(value: 0)
        let slots = DispatchSemaphore(value: jobs)
        for run in runs {
            slots.wait()
            if shared.interruption.load(ordering: .acquiring) != 0 {
                slots.signal()
                shared.results.withLock { $0.append(run.result(status: "not-run", seconds: 0, error: nil)) }
                finished.signal()
                continue
            }
            if !force && run.record.isComplete(in: run.variant.folder) {
                slots.signal()
                shared.results.withLock { $0.append(run.result(status: "skipped", seconds: 0, error: nil)) }
                shared.state.withLock { $0.skipped += 1 }
                progress.show(shared.state.withLock { $0 }, started: started)
                finished.signal()
                continue
            }
            do {
                try run.start(executable: Batch.executable, shared: shared) { result in
                    shared.results.withLock { $0.append(result) }
                    shared.state.withLock { state in
                        if result.status == "failed" { state.failed += 1 } else { state.done += 1 }
                    }
                    progress.show(shared.state.withLock { $0 }, started: started)
                    if !quiet, result.status == "failed" { progress.say("row \(result.row) (\(result.name)) failed: \(result.error ?? "")") }
                    // batch.json is written after every row, so a batch that dies leaves its rows told.
                    try? BatchReport(storyboard: storyboard, data: data, rows: shared.results.withLock { $0 }, interrupted: false,
                                     seconds: Date().timeIntervalSince(started), jobs: jobs).write(in: output, named: reportName)
                    slots.signal()
                    finished.signal()
                }
            } catch {
                shared.results.withLock { $0.append(run.result(status: "failed", seconds: 0, error: "\(error)")) }
                slots.signal()
                finished.signal()
            }
        }
        for _ in runs { finished.wait() }
        // Foundation lets go of a Process only once a wait has seen its exit (else it and its
        // run-loop source hold each other, which LeakSanitizer reports): each has exited by now.
        // The handlers hold the batch's shared state, which holds the processes: let go of both.
        for process in shared.processes.withLock({ $0 }) {
            process.waitUntilExit()
            process.terminationHandler = nil
        }
        shared.processes.withLock { $0.removeAll() }
        results = shared.results.withLock { $0 }
        let stoppedBy = shared.interruption.load(ordering: .acquiring)
        let report = BatchReport(storyboard: storyboard, data: data, rows: results, interrupted: stoppedBy != 0,
                                 seconds: Date().timeIntervalSince(started), jobs: jobs)
        try report.write(in: output, named: reportName)
        progress.clear()
        let summary = "batch: \(report.done) done, \(report.failed) failed, \(report.skipped) skipped of \(runs.count) rows "
            + "in \(String(format: "%.1f", report.time)) s → \((output as NSString).appendingPathComponent(reportName))"
        if stoppedBy != 0 {
            printError("interrupted: " + summary)
            throw ExitCode(128 + stoppedBy)
        }
        print(summary)
        if report.failed > 0 { throw ExitCode(3) }
    }
}

// MARK: - Parts of a batch

extension Batch {
    /// `--merge`: the parts' reports in the output folder joined into `batch.json`, and the exit a
    /// whole batch would have had (3 when a row failed or no part reported it).
    func mergeParts(of plan: BatchPlan, in output: String) throws {
        let report: BatchReport
        do {
            report = try BatchReport.merging(partsIn: output, plan: plan, storyboard: storyboard, data: data)
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
        try report.write(in: output)
        // A row a part was stopped in (a time limit, scancel) is as unfinished as one no part ran.
        let unfinished = report.rows.filter { $0.status == "not-run" || $0.status == "interrupted" }.map(\.row)
        let summary = "batch: \(report.done) done, \(report.failed) failed, \(report.skipped) skipped"
            + (unfinished.isEmpty ? "" : ", \(unfinished.count) not finished (rows \(unfinished.map(String.init).joined(separator: ", ")))")
            + " of \(report.rows.count) rows, merged → \((output as NSString).appendingPathComponent("batch.json"))"
        print(summary)
        if report.done + report.skipped < report.rows.count { throw ExitCode(3) }
    }
}

/// `--rows A-B`: rows numbered from 1, both ends included (`A` alone is one row).
struct RowRange: ExpressibleByArgument, CustomStringConvertible {
    var lower: Int
    var upper: Int

    init?(argument: String) {
        let ends = argument.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...2).contains(ends.count), let lower = ends.first ?? nil, let upper = ends.last ?? nil,
              lower >= 1, upper >= lower else { return nil }
        self.lower = lower
        self.upper = upper
    }

    var description: String { lower == upper ? "\(lower)" : "\(lower)-\(upper)" }

    func contains(_ row: Int) -> Bool { (lower...upper).contains(row) }
    func fits(_ count: Int) -> Bool { upper <= count }
}

// MARK: - One row's render

/// One row's `render-stories render`, in a process of its own: a row that crashes, or a render
/// that fails, takes no other row with it.
private struct BatchRun {
    let variant: BatchPlan.Variant
    let arguments: [String]
    let outputs: [String]
    let record: BatchRowRecord

    init(variant: BatchPlan.Variant, board: String, options: [String]) {
        self.variant = variant
        var rewritten: [String] = []
        var outputs = [(variant.folder as NSString).appendingPathComponent("summary.json")]
        var index = 0
        while index < options.count {
            let option = options[index]
            let name = option.split(separator: "=", maxSplits: 1).first.map(String.init) ?? option
            if Batch.fileOptions.contains(name) {
                let inline = option.contains("=")
                let value = inline ? String(option.split(separator: "=", maxSplits: 1)[1]) : options[index + 1]
                let path = (variant.folder as NSString).appendingPathComponent(value)
                rewritten += [name, path]
                outputs.append(path)
                index += inline ? 1 : 2
                continue
            }
            rewritten.append(option)
            index += 1
        }
        let sets = variant.row.values.keys.sorted().flatMap { ["--set", "\($0)=\(variant.row.values[$0]!)"] }
        arguments = ["render", board, "--output", variant.folder, "--quiet"] + rewritten + sets
        self.outputs = outputs
        record = BatchRowRecord(values: variant.row.values, arguments: arguments, outputs: outputs)
    }

    func result(status: String, seconds: Double, error: String?) -> BatchReport.RowResult {
        BatchReport.RowResult(row: variant.row.number, name: variant.name, status: status,
                              outputs: status == "done" || status == "skipped" || status == "failed"
                                  ? outputs.filter { FileManager.default.fileExists(atPath: $0) } : [],
                              time: (seconds * 1000).rounded() / 1000, error: error, values: variant.row.values)
    }

    /// Starts the render; `done` is called with the row's result when it exits.
    func start(executable: String, shared: BatchShared, done: @escaping @Sendable (BatchReport.RowResult) -> Void) throws {
        try OutputFolder.make(variant.folder)
        let log = (variant.folder as NSString).appendingPathComponent("batch-row.log")
        FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: log)
        let started = Date()
        let run = self
        process.terminationHandler = { process in
            let seconds = Date().timeIntervalSince(started)
            shared.state.withLock { _ = $0.running.removeValue(forKey: run.variant.row.number) }
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let lastLine = said.split(separator: "\n").last.map(String.init)
            switch process.terminationStatus {
            case 0, 3:
                // A story that could not be shown (its error card drawn) fails the row; the row
                // is then not complete, and a batch run again renders it again.
                if let failure = BatchRowOutcome.failure(in: run.variant.folder) {
                    done(run.result(status: "failed", seconds: seconds, error: failure))
                } else {
                    try? run.record.write(in: run.variant.folder)
                    done(run.result(status: "done", seconds: seconds, error: nil))
                }
            case 128 + SIGINT, 128 + SIGTERM:
                done(run.result(status: "interrupted", seconds: seconds, error: nil))
            default:
                done(run.result(status: "failed", seconds: seconds, error: lastLine ?? "render exited \(process.terminationStatus)"))
            }
        }
        try process.run()
        shared.state.withLock { $0.running[variant.row.number] = process.processIdentifier }
        shared.processes.withLock { $0.append(process) }
    }
}

/// What the batch's threads share: the counts and renders running, the rows' results, and the
/// signal that stopped it (0: none).
private final class BatchShared: Sendable {
    let state: Mutex<BatchState>
    let results = Mutex<[BatchReport.RowResult]>([])
    let interruption = Atomic<Int32>(0)
    /// Every render started, waited for at the end.
    let processes = Mutex<[Process]>([])

    init(total: Int) { state = Mutex(BatchState(total: total)) }
}

/// The batch's counts, and the renders running (by row) for a signal to reach.
private struct BatchState: Sendable {
    var total: Int
    var done = 0
    var failed = 0
    var skipped = 0
    var running: [Int: Int32] = [:]

    init(total: Int) { self.total = total }
}

/// One line of progress on stderr for the whole batch: rewritten on a terminal, a line a row
/// otherwise.
private struct BatchProgress: Sendable {
    let quiet: Bool
    let terminal = isatty(STDERR_FILENO) == 1

    func show(_ state: BatchState, started: Date) {
        guard !quiet else { return }
        let finished = state.done + state.failed + state.skipped
        let elapsed = Date().timeIntervalSince(started)
        let rendered = state.done + state.failed
        let left = state.total - finished
        let eta = rendered > 0 ? elapsed / Double(rendered) * Double(left) : nil
        let line = "batch: \(finished)/\(state.total) rows (\(state.failed) failed, \(state.skipped) skipped), "
            + "\(state.running.count) rendering, \(String(format: "%.0f", elapsed)) s" + (eta.map { ", ETA \(String(format: "%.0f", $0)) s" } ?? "")
        FileHandle.standardError.write(Data((terminal ? "\r\u{1B}[K" + line : line + "\n").utf8))
    }

    func say(_ text: String) {
        FileHandle.standardError.write(Data(((terminal ? "\r\u{1B}[K" : "") + text + "\n").utf8))
    }

    func clear() {
        if terminal && !quiet { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}

extension ParameterArguments {
    /// The `--set` values among other options (a batch's options for every row).
    static func values(in options: [String]) -> [String: String] {
        var values: [String: String] = [:]
        var index = 0
        while index < options.count {
            var pair: String?
            if options[index] == "--set", index + 1 < options.count {
                pair = options[index + 1]
                index += 1
            } else if options[index].hasPrefix("--set=") {
                pair = String(options[index].dropFirst("--set=".count))
            }
            if let pair, let equals = pair.firstIndex(of: "=") {
                values[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            index += 1
        }
        return values
    }
}
