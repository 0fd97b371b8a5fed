import Compositor
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import StoryPlayer
import Synchronization

/// SIGINT and SIGTERM taken by the program instead of ending it, until `cancel()`: the one
/// place the CLI sets signals up. `render` stops at the next frame (a second signal at once),
/// `batch` passes the signal on to its rows' renders, `studio` stops its server and its render
/// (`Studio.handleSignals`), the short commands end at once after removing their temporary
/// files (`SignalEnd`).
struct SignalWatch {
    private let sources: [any DispatchSourceSignal]

    /// Installs the handlers. `handle` gets the signal's number and how many SIGINTs and
    /// SIGTERMs have arrived in all, this one included: the count is kept here, atomically,
    /// because the two signals' handlers run on a concurrent queue and may run at once (a
    /// SIGINT and a SIGTERM that arrive together must not both look like the first). Two of the
    /// same signal close together may reach it as one call that adds two.
    init(_ handle: @escaping @Sendable (_ signal: Int32, _ count: UInt) -> Void) {
        let arrived = SignalCount()
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let count = arrived.signals.add(source.data, ordering: .acquiringAndReleasing).newValue
                handle(number, count)
            }
            source.resume()
            return source
        }
    }

    func cancel() { sources.forEach { $0.cancel() } }
}

/// The SIGINTs and SIGTERMs a `SignalWatch` has seen, shared by its two handlers.
private final class SignalCount: Sendable {
    let signals = Atomic<UInt>(0)
}

/// Ctrl-C (or SIGTERM) during a short command (`still`, `merge`, `timeline`, `report`): it ends at
/// once, as the default action would, but first removes the temporary files its writers still
/// have open, so that no `.name.pid-n.tmp` is left beside the output. `render` stops at the next
/// frame instead (`RenderInterruption`).
struct SignalEnd {
    private let watch: SignalWatch

    /// Installs the handlers; they hold until `cancel()`.
    init() {
        watch = SignalWatch { number, _ in
            TemporaryFiles.removeAll()
            _exit(128 + number)
        }
    }

    func cancel() { watch.cancel() }
}
