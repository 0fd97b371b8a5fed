import Logging
import ServiceLifecycle
import Synchronization

/// How the studio's server stops: when asked (`StudioServer.stop()`, which the CLI calls on
/// SIGINT and SIGTERM through its one signal helper), never on signals of its own.
///
/// A graceful stop: the server finishes the answers it is writing and sends each page's
/// WebSocket a close. A page that does not answer it (a frozen or suspended tab) is cut off
/// after `patience`: Hummingbird's own signal handling, used before, waited for it without end,
/// and Ctrl-C did not stop the studio while such a page was open.
final class StudioStopping: Sendable {
    /// How long a stop waits for the pages to close their connections before cutting them.
    static let patience: Duration = .seconds(2)

    private struct State {
        var group: ServiceGroup?
        var requested = false
    }
    private let state = Mutex(State())

    /// Runs `service` until `stop()`; a stop asked for before it starts is kept.
    func run(_ service: some Service, logger: Logger) async throws {
        var configuration = ServiceGroupConfiguration(services: [.init(service: service)], logger: logger)
        configuration.maximumGracefulShutdownDuration = Self.patience
        let group = ServiceGroup(configuration: configuration)
        let requested = state.withLock { state in
            state.group = group
            return state.requested
        }
        // Delivered once the group runs.
        if requested { await group.triggerGracefulShutdown() }
        do {
            try await group.run()
        } catch where state.withLock({ $0.requested }) {
            // Pages cut off after `patience`: the stop asked for, not a failure to serve.
        }
    }

    func stop() {
        let group = state.withLock { state in
            state.requested = true
            return state.group
        }
        guard let group else { return }
        Task { await group.triggerGracefulShutdown() }
    }
}
