import Synchronization

/// A request, from a signal handler or another thread, that a render stop at the next frame: it
/// finishes what is in flight, writes the trace and a summary that says it was interrupted, and
/// leaves no temporary file behind. The CLI sets it on SIGINT and SIGTERM.
///
/// It lives in the base, below the players, because a player waiting for a live source's
/// picture on the virtual clock (each player is given it beside its decode limits:
/// `ItemPlayer.interruption`) stops waiting once it is requested: a source that accepts a
/// connection and never answers would otherwise hold the frame, and the stop, for the whole
/// open timeout.
public final class RenderInterruption: Sendable {
    private let signal = Atomic<Int32>(0)

    public init() {}

    /// Asks the render to stop; `signal` is reported back (the CLI exits 128 + signal).
    public func request(signal number: Int32) {
        _ = signal.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing)
    }

    /// The signal that asked, once one has.
    public var requested: Int32? {
        let value = signal.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }
}
