import Compositor
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import StoryPlayer

/// SIGINT and SIGTERM taken by the program instead of ending it, until `cancel()`: the one
/// place the CLI sets signals up. `render` stops at the next frame (a second signal at once),
/// `batch` passes the signal on to its rows' renders, `studio` stops its server and its render
/// (`Studio.handleSignals`), the short commands end at once after removing their temporary
/// files (`SignalEnd`).
struct SignalWatch {
    private let sources: [any DispatchSourceSignal]

    /// Installs the handlers. `handle` gets the signal's number and how many of it arrived
    /// since it last ran: two signals close together may reach it as one call, with a count
    /// of two.
    init(_ handle: @escaping @Sendable (_ signal: Int32, _ count: UInt) -> Void) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handle(number, source.data) }
            source.resume()
            return source
        }
    }

    func cancel() { sources.forEach { $0.cancel() } }
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
