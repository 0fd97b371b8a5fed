import Foundation

extension RenderInvocation {
    /// What a render's exit status means (`render-stories help`'s "Exit codes"), read in one
    /// place by everyone who runs a render: a batch's row, the studio's Render button.
    public enum Exit: Sendable, Equatable {
        /// 0: every frame and file written.
        case done
        /// 3: rendered, but a story failed and `--strict` was given; its frames and files are
        /// written (the error card drawn).
        case doneWithFailedStories
        /// 1: an output could not be written.
        case outputError
        /// 2: a usage or storyboard error, before any frame.
        case usage
        /// 128 + SIGINT or SIGTERM: stopped at a frame by the signal, its temporary files removed.
        case interrupted(signal: Int32)
        /// Ended by a signal it did not handle (a crash, SIGKILL).
        case killed(signal: Int32)
        /// Any other status.
        case other(Int32)

        /// The meaning of `status`; `bySignal` when the process did not exit but was ended by
        /// the signal `status` (Foundation's `uncaughtSignal`).
        public init(status: Int32, bySignal: Bool = false) {
            switch (status, bySignal) {
            case (_, true): self = .killed(signal: status)
            case (0, _): self = .done
            case (3, _): self = .doneWithFailedStories
            case (1, _): self = .outputError
            case (2, _): self = .usage
            case (128 + SIGINT, _), (128 + SIGTERM, _): self = .interrupted(signal: status - 128)
            default: self = .other(status)
            }
        }

        /// How `process`, which has ended, ended.
        public init(_ process: Process) {
            self.init(status: process.terminationStatus, bySignal: process.terminationReason == .uncaughtSignal)
        }

        /// Whether the render went to its end, its files written: done, or done with a story
        /// that failed (which its caller may count as failed: a batch's row does).
        public var rendered: Bool { self == .done || self == .doneWithFailedStories }

        /// The status as a shell shows it (`$?`).
        public var status: Int32 {
            switch self {
            case .done: 0
            case .doneWithFailedStories: 3
            case .outputError: 1
            case .usage: 2
            case .interrupted(let signal): 128 + signal
            case .killed(let signal): 128 + signal
            case .other(let status): status
            }
        }
    }
}
