import ArgumentParser
import Compositor
import Foundation
import StoryPlayer

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

    func validate() throws {
        if merge && (rows != nil || check) { throw ValidationError("--merge joins the parts' reports; give it without --rows or --check") }
        if let jobs, !(1...64).contains(jobs) { throw ValidationError("--jobs must be 1 to 64") }
        if output == nil && !check { throw ValidationError("give --output DIR: the batch's folder, a folder for each row in it") }
        guard FileManager.default.fileExists(atPath: storyboard) else { throw ValidationError("no such file \(storyboard)") }
        guard FileManager.default.fileExists(atPath: data) else { throw ValidationError("--data \(data): no such file") }
        if let problem = BatchRunner.problem(withRowOptions: renderOptions) { throw ValidationError(problem) }
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
        let runner = BatchRunner(variants: variants, configuration: .init(
            storyboard: storyboard, data: data, output: output, reportName: reportName, executable: Batch.executable,
            jobs: jobs, force: force, options: renderOptions))
        try render(runner, started: started)
    }

    /// Renders the rows, a line of progress on stderr, and exits as the batch went: 128 + the
    /// signal that stopped it, 3 when a row failed.
    private func render(_ runner: BatchRunner, started: Date) throws {
        let progress = BatchProgress(quiet: quiet, started: started)
        // Each render stops at its next frame and removes its temporary files; no new row starts.
        let signals = SignalWatch { number, _ in runner.interrupt(signal: number) }
        defer { signals.cancel() }
        let report = try runner.run(started: started) { counts, result in
            progress.show(counts)
            if !quiet, let result, result.status == .failed { progress.say("row \(result.row) (\(result.name)) failed: \(result.error ?? "")") }
        }
        let output = runner.configuration.output, reportName = runner.configuration.reportName
        progress.clear()
        let summary = "batch: \(report.done) done, \(report.failed) failed, \(report.skipped) skipped of \(report.rows.count) rows "
            + "in \(String(format: "%.1f", report.time)) s → \((output as NSString).appendingPathComponent(reportName))"
        if let stoppedBy = runner.interruption {
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
        let unfinished = report.rows.filter { $0.status == .notRun || $0.status == .interrupted }.map(\.row)
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

/// One line of progress on stderr for the whole batch: rewritten on a terminal, a line a row
/// otherwise.
private struct BatchProgress: Sendable {
    let quiet: Bool
    let started: Date
    let terminal = isatty(STDERR_FILENO) == 1

    func show(_ state: BatchRunner.Counts) {
        guard !quiet else { return }
        let finished = state.finished
        let elapsed = Date().timeIntervalSince(started)
        let rendered = state.done + state.failed
        let left = state.total - finished
        let eta = rendered > 0 ? elapsed / Double(rendered) * Double(left) : nil
        let line = "batch: \(finished)/\(state.total) rows (\(state.failed) failed, \(state.skipped) skipped), "
            + "\(state.running) rendering, \(String(format: "%.0f", elapsed)) s" + (eta.map { ", ETA \(String(format: "%.0f", $0)) s" } ?? "")
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
