/// What became of a batch's row, as `batch.json` writes it (`"status"`): these strings are read
/// by scripts and by `batch --merge`, and do not change.
public enum BatchRowStatus: String, Sendable, Codable, CaseIterable {
    /// Rendered, every file written, no story failed.
    case done
    /// Its render failed, or a story could not be shown (its error card drawn).
    case failed
    /// A run before left it complete with the same values and options: passed over.
    case skipped
    /// Its render was stopped by a signal (Ctrl-C, a job's time limit).
    case interrupted
    /// Never started: the batch was stopped first, or no part of a split batch reported it.
    case notRun = "not-run"

    /// Whether the row's folder holds its finished render.
    public var isFinished: Bool { self == .done || self == .skipped }
}
