import Foundation
import Synchronization

/// Work on the pairs (or frames) of a batch spread over the cores: `body(i)` for each `i` in
/// `0..<count` at once (`DispatchQueue.concurrentPerform`), the results in order.
enum SideBySide {
    static func map<T: Sendable>(_ count: Int, _ body: @Sendable (Int) -> T) -> [T] {
        let results = Mutex<[T?]>(Array(repeating: nil, count: count))
        DispatchQueue.concurrentPerform(iterations: count) { i in
            let value = body(i)
            results.withLock { $0[i] = value }
        }
        return results.withLock { $0.map { $0! } }
    }
}
