@testable import StoryMedia
import StoryPlayerTestSupport
import XCTest

/// Waits come from the user (timeouts), so turning them into deadlines must not trap.
final class InterruptGateTests: XCTestCase {
    func testWaitsOfAnyLengthBecomeADeadlineWithoutTrapping() {
        XCTAssertEqual(InterruptGate.nanoseconds(1.5), 1_500_000_000)
        XCTAssertEqual(InterruptGate.nanoseconds(0), 0)
        XCTAssertEqual(InterruptGate.nanoseconds(-3), 0)
        XCTAssertEqual(InterruptGate.nanoseconds(.nan), 0)
        XCTAssertEqual(InterruptGate.nanoseconds(1e300), 3_200_000_000_000_000_000, "a century at most")
        XCTAssertLessThan(InterruptGate.nanoseconds(.infinity), UInt64.max / 2, "now + the wait cannot wrap")
    }
}
