import Foundation
import StoryBase
import XCTest

/// The queue between a decode thread and its player: the player looks at the next picture
/// without taking it, and the thread converts only when there is room.
final class BoundedQueueTests: XCTestCase {
    func testPeekLeavesTheOldestElementQueued() {
        let queue = BoundedQueue<Int>(capacity: 2)
        queue.put(1)
        queue.put(2)
        XCTAssertEqual(queue.peek(), 1)
        XCTAssertEqual(queue.tryPeek(), 1)
        XCTAssertEqual(queue.tryTake(), 1)
        XCTAssertEqual(queue.tryPeek(), 2)
    }

    func testWaitForRoomReturnsOnlyOnceTheConsumerTakes() {
        let queue = BoundedQueue<Int>(capacity: 1)
        queue.put(1)
        let hasRoom = expectation(description: "room")
        let returned = NSLock()
        nonisolated(unsafe) var early = true
        Thread.detachNewThread {
            let open = queue.waitForRoom()
            returned.withLock { XCTAssertFalse(early, "waitForRoom returned while the queue was full") }
            XCTAssertTrue(open)
            hasRoom.fulfill()
        }
        Thread.sleep(forTimeInterval: 0.05)
        returned.withLock {
            early = false
            XCTAssertEqual(queue.tryTake(), 1)
        }
        wait(for: [hasRoom], timeout: 5)
    }

    func testClosingWakesAWaiterWithNoRoom() {
        let queue = BoundedQueue<Int>(capacity: 1)
        queue.put(1)
        let woke = expectation(description: "woke")
        Thread.detachNewThread {
            XCTAssertFalse(queue.waitForRoom())
            woke.fulfill()
        }
        Thread.sleep(forTimeInterval: 0.02)
        queue.close()
        wait(for: [woke], timeout: 5)
        XCTAssertEqual(queue.peek(), 1, "a closed queue still hands out what it holds")
        XCTAssertEqual(queue.tryTake(), 1)
        XCTAssertNil(queue.peek())
    }

    func testPeekUntilGivesUpAtTheDeadlineAndWakesForAPut() {
        let queue = BoundedQueue<Int>(capacity: 1)
        let started = Date()
        XCTAssertNil(queue.peek(until: started.addingTimeInterval(0.05)))
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.045, "returned before its deadline")
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.02)
            queue.put(7)
        }
        XCTAssertEqual(queue.peek(until: Date().addingTimeInterval(5)), 7)
    }

    func testATakeBlockedOnAnEmptyQueueGetsEveryElementInOrder() {
        let queue = BoundedQueue<Int>(capacity: 2)
        Thread.detachNewThread {
            for value in 0..<500 { queue.put(value) }
            queue.close()
        }
        var taken: [Int] = []
        while let value = queue.take() { taken.append(value) }
        XCTAssertEqual(taken, Array(0..<500))
    }
}
