import Foundation
import Synchronization

/// The pages connected over the WebSocket, and what is said to all of them: a new version of
/// the storyboard, its errors, the render's progress. Each connection reads its own stream.
final class StudioHub: Sendable {
    private let listeners = Mutex<[UUID: AsyncStream<String>.Continuation]>([:])

    /// A stream of the messages from now on, and the id that ends it.
    func subscribe() -> (UUID, AsyncStream<String>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
        listeners.withLock { $0[id] = continuation }
        return (id, stream)
    }

    func unsubscribe(_ id: UUID) {
        listeners.withLock { $0.removeValue(forKey: id) }?.finish()
    }

    /// Sends `message` (a JSON object) to every page.
    func broadcast<Message: Encodable>(_ message: Message) {
        guard let data = try? JSONEncoder().encode(message), let text = String(data: data, encoding: .utf8) else { return }
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.yield(text) }
    }

    var count: Int { listeners.withLock { $0.count } }
}
