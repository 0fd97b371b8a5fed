import Foundation

/// A first-in first-out queue with a fixed capacity, between one producer and one consumer.
///
/// `put` blocks while the queue is full (backpressure: a decoder never runs far ahead of what is
/// shown) and `take` blocks while it is empty. `close` wakes both sides for good.
final class BoundedQueue<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element] = []
    private var closed = false
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity >= 1, "a queue needs room for one element")
        self.capacity = capacity
    }

    /// Appends, waiting for room. Returns false (and drops the element) once the queue is closed.
    @discardableResult
    func put(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !closed { condition.wait() }
        guard !closed else { return false }
        items.append(element)
        condition.broadcast()
        return true
    }

    /// Appends without waiting when the newest element may be replaced: on a full queue,
    /// `replacing` is given the last element and returns what stands in its place, or nil to
    /// wait for room as `put` does (a live stream's newer picture replaces one the viewer has not
    /// taken yet). It runs under the queue's lock. Returns false once the queue is closed.
    @discardableResult
    func put(_ element: Element, replacing: (Element) -> Element?) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if items.count >= capacity, !closed, let last = items.last, let merged = replacing(last) {
            items[items.count - 1] = merged
            condition.broadcast()
            return true
        }
        while items.count >= capacity && !closed { condition.wait() }
        guard !closed else { return false }
        items.append(element)
        condition.broadcast()
        return true
    }

    /// Waits until a `put` would not block. Returns false once the queue is closed. With one
    /// producer, the room stays free until that producer puts.
    func waitForRoom() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !closed { condition.wait() }
        return !closed
    }

    /// Removes the oldest element, waiting for one. Nil once the queue is closed and empty.
    func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed { condition.wait() }
        guard !items.isEmpty else { return nil }
        let element = items.removeFirst()
        condition.broadcast()
        return element
    }

    /// The oldest element, left in the queue, waiting for one. Nil once the queue is closed and
    /// empty. With one consumer, a following `tryTake` removes this same element.
    func peek() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed { condition.wait() }
        return items.first
    }

    /// The oldest element, left in the queue, waiting for one until `deadline`. Nil once the
    /// queue is closed and empty, or when the deadline passes first.
    func peek(until deadline: Date) -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed {
            if !condition.wait(until: deadline) { break }
        }
        return items.first
    }

    /// The oldest element, left in the queue, if there is one now.
    func tryPeek() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        return items.first
    }

    /// Removes the oldest element if there is one, without waiting.
    func tryTake() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        guard !items.isEmpty else { return nil }
        let element = items.removeFirst()
        condition.broadcast()
        return element
    }

    /// Wakes every waiter; later `put`s are refused and `take` drains what is left.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
