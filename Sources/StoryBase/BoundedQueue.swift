import Dispatch
import Foundation
import Synchronization

/// A first-in first-out queue with a bounded capacity, between one producer and one consumer.
///
/// `put` blocks while the queue is full (backpressure: a decoder runs no further ahead of what
/// is shown than its queues hold) and `take` blocks while it is empty. `close` wakes both sides for good.
///
/// Its state lives in a `Mutex`, so the compiler checks every access. `Synchronization` has no
/// condition variable; a waiter instead parks on a semaphore of its own that it registers under
/// the lock, and every change wakes all registered waiters, which then look again. A wake-up
/// between registering and waiting is not lost: the semaphore counts it.
package final class BoundedQueue<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var closed = false
        var waiters: [DispatchSemaphore] = []

        var isFull: Bool { items.count >= capacity }
        var capacity: Int

        /// Wakes everyone waiting; each checks its own condition again.
        mutating func changed() {
            for waiter in waiters { waiter.signal() }
            waiters.removeAll()
        }
    }

    private let state: Mutex<State>

    package init(capacity: Int) {
        precondition(capacity >= 1, "a queue needs room for one element")
        state = Mutex(State(capacity: capacity))
    }

    /// How many elements fit before `put` waits.
    package var capacity: Int { state.withLock { $0.capacity } }

    /// How many elements are queued now.
    package var count: Int { state.withLock { $0.items.count } }

    /// Changes how many elements fit, once the producer knows what an element costs (a decode
    /// thread learns its pictures' size from the first). A smaller capacity keeps what is
    /// queued; `put` waits until the queue is below it. Wakes a producer waiting for room.
    package func setCapacity(_ capacity: Int) {
        precondition(capacity >= 1, "a queue needs room for one element")
        state.withLock { state in
            state.capacity = capacity
            state.changed()
        }
    }

    /// Runs `attempt` under the lock until it returns a result, waiting for a change between
    /// tries. Past `deadline`, returns `expired` of the state (without waiting again).
    private func waiting<Outcome: Sendable>(until deadline: Date? = nil,
                                           _ attempt: (inout State) -> Outcome?,
                                           expired: (inout State) -> Outcome) -> Outcome {
        var waiter: DispatchSemaphore?
        while true {
            let result: Outcome? = state.withLock { state in
                if let result = attempt(&state) { return result }
                if let waiter { state.waiters.append(waiter) }
                return nil
            }
            if let result { return result }
            // The first miss only allocates the semaphore: the next try registers it.
            guard let waiter else {
                waiter = DispatchSemaphore(value: 0)
                continue
            }
            guard let deadline else {
                waiter.wait()
                continue
            }
            if waiter.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow)) == .timedOut {
                return state.withLock { state in
                    state.waiters.removeAll { $0 === waiter }
                    return attempt(&state) ?? expired(&state)
                }
            }
        }
    }

    /// Appends, waiting for room. Returns false (and drops the element) once the queue is closed.
    @discardableResult
    package func put(_ element: Element) -> Bool {
        waiting({ state in
            if state.closed { return false }
            guard !state.isFull else { return nil }
            state.items.append(element)
            state.changed()
            return true
        }, expired: { _ in false })
    }

    /// Appends without waiting when the newest element may be replaced: on a full queue,
    /// `replacing` is given the last element and returns what stands in its place, or nil to
    /// wait for room as `put` does (a live stream's newer picture replaces one the viewer has not
    /// taken yet). It runs under the queue's lock. Returns false once the queue is closed.
    @discardableResult
    func put(_ element: Element, replacing: (Element) -> Element?) -> Bool {
        let replaced: Bool = state.withLock { state in
            guard state.isFull, !state.closed, let last = state.items.last, let merged = replacing(last) else { return false }
            state.items[state.items.count - 1] = merged
            state.changed()
            return true
        }
        return replaced || put(element)
    }

    /// Waits until a `put` would not block. Returns false once the queue is closed. With one
    /// producer, the room stays free until that producer puts.
    package func waitForRoom() -> Bool {
        waiting({ state in state.closed ? false : state.isFull ? nil : true }, expired: { _ in false })
    }

    /// Removes the oldest element, waiting for one. Nil once the queue is closed and empty.
    package func take() -> Element? {
        waiting({ state -> Element?? in
            if !state.items.isEmpty {
                let element = state.items.removeFirst()
                state.changed()
                return .some(element)
            }
            return state.closed ? .some(nil) : nil
        }, expired: { _ in nil }) ?? nil
    }

    /// The oldest element, left in the queue, waiting for one. Nil once the queue is closed and
    /// empty. With one consumer, a following `tryTake` removes this same element.
    package func peek() -> Element? {
        peek(until: nil)
    }

    /// The oldest element, left in the queue, waiting for one until `deadline`. Nil once the
    /// queue is closed and empty, or when the deadline passes first.
    package func peek(until deadline: Date?) -> Element? {
        waiting(until: deadline, { state -> Element?? in
            if let first = state.items.first { return .some(first) }
            return state.closed ? .some(nil) : nil
        }, expired: { state in .some(state.items.first) }) ?? nil
    }

    /// As `peek(until:)`, and nil as soon as `interruption` is requested (SIGINT): waited for in
    /// slices of `interruptionPoll`, because a signal does not wake a condition wait. A nil
    /// `interruption` waits as `peek(until:)` does.
    package func peek(until deadline: Date?, unless interruption: RenderInterruption?) -> Element? {
        guard let interruption else { return peek(until: deadline) }
        while interruption.requested == nil {
            let poll = Date(timeIntervalSinceNow: BoundedQueue.interruptionPoll)
            let slice = deadline.map { min($0, poll) } ?? poll
            if let element = peek(until: slice) { return element }
            if isClosed { return nil }
            if let deadline, slice >= deadline { return nil }
        }
        return nil
    }

    /// How often a wait that a signal may call off looks at the interruption.
    package static var interruptionPoll: Double { 0.1 }

    /// The oldest element, left in the queue, if there is one now.
    package func tryPeek() -> Element? {
        state.withLock { $0.items.first }
    }

    /// Whether `close()` has been called (what is left may still be taken).
    package var isClosed: Bool {
        state.withLock { $0.closed }
    }

    /// Removes the oldest element if there is one, without waiting.
    package func tryTake() -> Element? {
        state.withLock { state in
            guard !state.items.isEmpty else { return nil }
            let element = state.items.removeFirst()
            state.changed()
            return element
        }
    }

    /// Wakes every waiter; later `put`s are refused and `take` drains what is left.
    package func close() {
        state.withLock { state in
            state.closed = true
            state.changed()
        }
    }
}
