import Compositor
import Foundation
import StoryBase
import Synchronization

/// A batch's rows rendered (`render-stories batch`): each row's `render` in a process of its
/// own (`BatchRowRender`), up to `jobs` at once; a row a run before finished with the same
/// values and options passed over (unless `force`); the report (`batch.json`, or a part's
/// `batch-rows-A-B.json`) written after every row, so a batch that dies leaves its rows told;
/// and a signal (`interrupt`) passed on to every render running, no row started after it.
///
/// The command parses and prints; the runner holds the batch's policy, so the studio and the
/// Slurm rows (`batch --rows`) meet the same rules.
public final class BatchRunner: Sendable {
    public struct Configuration: Sendable {
        public var storyboard: String
        /// The data's path, as the report names it.
        public var data: String
        /// The batch's folder: a folder for each row in it, and the report.
        public var output: String
        /// `batch.json`, or a part's `batch-rows-A-B.json`.
        public var reportName: String
        /// The program each row runs as `render` (this one).
        public var executable: String
        /// Rows rendered at once; nil: one per core.
        public var jobs: Int?
        /// Render every row, also those a run before finished.
        public var force: Bool
        /// render's options for every row; the files they name are put into each row's folder.
        public var options: [String]

        public init(storyboard: String, data: String, output: String, reportName: String = "batch.json",
                    executable: String, jobs: Int? = nil, force: Bool = false, options: [String] = []) {
            self.storyboard = storyboard
            self.data = data
            self.output = output
            self.reportName = reportName
            self.executable = executable
            self.jobs = jobs
            self.force = force
            self.options = options
        }
    }

    /// The batch's counts, and how many renders are running, as rows finish.
    public struct Counts: Sendable {
        public var total: Int
        public var done = 0
        public var failed = 0
        public var skipped = 0
        /// Renders running when the counts were taken.
        public var running = 0
        public var finished: Int { done + failed + skipped }
    }

    /// The options that are the batch's to set for each row: a row renders into its own folder,
    /// quietly, every frame.
    public static let ownOptions = ["--output", "-o", "--frames", "--quiet", "-q", "--progress"]

    public let configuration: Configuration
    let rows: [BatchRowRender]
    /// Rows rendered at once.
    public let jobs: Int
    private let state: Mutex<State>
    private let results = Mutex<[BatchReport.RowResult]>([])
    /// Every render started, waited for at the end.
    private let processes = Mutex<[Process]>([])
    /// The signal that stopped the batch; 0: none.
    private let stoppedBy = Atomic<Int32>(0)

    /// The counts, and the renders running by row number for a signal to reach.
    private struct State {
        var counts: Counts
        var running: [Int: Int32] = [:]

        var shown: Counts {
            var counts = counts
            counts.running = running.count
            return counts
        }
    }

    /// `variants`: the rows to render (a part's, with `--rows`), never none.
    public init(variants: [BatchPlan.Variant], configuration: Configuration,
                cores: Int = ProcessInfo.processInfo.activeProcessorCount) {
        precondition(!variants.isEmpty, "a batch has rows: BatchPlan refuses data without")
        self.configuration = configuration
        jobs = min(configuration.jobs ?? cores, variants.count)
        // Each render draws with cores ÷ jobs threads, unless told: jobs × cores threads would
        // only take turns.
        let told = configuration.options.contains { $0 == "--threads" || $0.hasPrefix("--threads=") }
        let options = configuration.options + (told ? [] : ["--threads", String(max(1, cores / jobs))])
        rows = variants.map { BatchRowRender(variant: $0, board: configuration.storyboard, options: options) }
        state = Mutex(State(counts: Counts(total: variants.count)))
    }

    /// The signal that stopped the batch, if one did.
    public var interruption: Int32? {
        let signal = stoppedBy.load(ordering: .acquiring)
        return signal == 0 ? nil : signal
    }

    /// Stops the batch: every render running stops at its next frame and removes its temporary
    /// files (SIGINT), and no new row starts. The first signal counts; later ones do nothing.
    public func interrupt(signal: Int32) {
        guard stoppedBy.compareExchange(expected: 0, desired: signal, ordering: .acquiringAndReleasing).exchanged else { return }
        state.withLock { $0.running.values.forEach { kill($0, SIGINT) } }
    }

    /// Renders the rows and returns the batch's report, written. `started`: when the batch
    /// began (its data read and checked), which the report's time counts from. `observe` is
    /// called with the counts when a row is passed over (no result) or finishes (its result),
    /// on any thread.
    public func run(started: Date = Date(), observe: @escaping @Sendable (Counts, BatchReport.RowResult?) -> Void = { _, _ in }) throws -> BatchReport {
        try OutputFolder.make(configuration.output)
        let finished = DispatchSemaphore(value: 0)
        let slots = DispatchSemaphore(value: jobs)
        let leave = { @Sendable in
            slots.signal()
            finished.signal()
        }
        for row in rows {
            slots.wait()
            if interruption != nil {
                results.withLock { $0.append(row.result(status: .notRun, seconds: 0, error: nil)) }
                leave()
            } else if !configuration.force && row.record.isComplete(in: row.variant.folder) {
                results.withLock { $0.append(row.result(status: .skipped, seconds: 0, error: nil)) }
                observe(state.withLock { state in
                    state.counts.skipped += 1
                    return state.shown
                }, nil)
                leave()
            } else {
                start(row, started: started, observe: observe, leave: leave)
            }
        }
        for _ in rows { finished.wait() }
        letGoOfProcesses()
        let report = report(started: started, interrupted: interruption != nil)
        try report.write(in: configuration.output, named: configuration.reportName)
        return report
    }

    /// Starts `row`'s render; `leave` is called once it has exited (or could not start, or the
    /// batch was stopped first).
    private func start(_ row: BatchRowRender, started: Date, observe: @escaping @Sendable (Counts, BatchReport.RowResult?) -> Void,
                       leave: @escaping @Sendable () -> Void) {
        let number = row.variant.row.number
        let finish = { @Sendable [self] (result: BatchReport.RowResult) in
            state.withLock { _ = $0.running.removeValue(forKey: number) }
            results.withLock { $0.append(result) }
            observe(state.withLock { state in
                if result.status == .failed { state.counts.failed += 1 } else { state.counts.done += 1 }
                return state.shown
            }, result)
            // Written after every row, so a batch that dies leaves its rows told.
            try? report(started: started, interrupted: false).write(in: configuration.output, named: configuration.reportName)
            leave()
        }
        do {
            // Started and counted as running under the lock `interrupt` takes: a signal either
            // finds the render running, or stops it from starting.
            let process = try state.withLock { state throws -> Process? in
                guard interruption == nil else { return nil }
                let process = try row.start(executable: configuration.executable, done: finish)
                state.running[number] = process.processIdentifier
                return process
            }
            guard let process else {
                results.withLock { $0.append(row.result(status: .notRun, seconds: 0, error: nil)) }
                return leave()
            }
            processes.withLock { $0.append(process) }
        } catch {
            results.withLock { $0.append(row.result(status: .failed, seconds: 0, error: "\(error)")) }
            leave()
        }
    }

    /// Foundation lets go of a Process only once a wait has seen its exit (else it and its
    /// run-loop source hold each other, which LeakSanitizer reports): each has exited by now.
    /// The handlers hold the runner, which holds the processes: let go of both.
    private func letGoOfProcesses() {
        for process in processes.withLock({ $0 }) {
            process.waitUntilExit()
            process.terminationHandler = nil
        }
        processes.withLock { $0.removeAll() }
    }

    private func report(started: Date, interrupted: Bool) -> BatchReport {
        BatchReport(storyboard: configuration.storyboard, data: configuration.data, rows: results.withLock { $0 },
                    interrupted: interrupted, seconds: Date().timeIntervalSince(started), jobs: jobs)
    }
}
