import Compositor
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C (or SIGTERM) during a short command (`still`, `merge`, `timeline`, `report`): it ends at
/// once, as the default action would, but first removes the temporary files its writers still
/// have open, so that no `.name.pid-n.tmp` is left beside the output. `render` stops at the next
/// frame instead (`RenderInterruption`).
struct SignalEnd {
    private let sources: [any DispatchSourceSignal]

    /// Installs the handlers; they hold until `cancel()`.
    init() {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                TemporaryFiles.removeAll()
                _exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    func cancel() { sources.forEach { $0.cancel() } }
}
