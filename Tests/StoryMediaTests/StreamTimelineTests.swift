@testable import StoryMedia
import StoryPlayerTestSupport
import XCTest

/// Timestamps come from the file, so the arithmetic on them must not trap on any value.
final class StreamTimelineTests: XCTestCase {
    func testSecondsCountFromTheStreamsStart() {
        let timeline = StreamTimeline(unit: 1.0 / 90_000, start: 900_000)
        XCTAssertEqual(timeline.seconds(900_000), 0)
        XCTAssertEqual(timeline.seconds(945_000)!, 0.5, accuracy: 1e-12)
        XCTAssertNil(timeline.seconds(Int64.min), "AV_NOPTS_VALUE has no time")
        XCTAssertEqual(timeline.timestamp(0.5), 945_000)
        XCTAssertEqual(timeline.timestamp(timeline.seconds(1_234_567)!), 1_234_567)
    }

    func testHostileTimestampsClampInsteadOfTrapping() {
        let far = StreamTimeline(unit: 1.0 / 1000, start: Int64.max - 10)
        XCTAssertNotNil(far.seconds(Int64.min + 1), "pts - start overflows Int64; in Double it does not")
        XCTAssertEqual(far.timestamp(1e300), .max)
        XCTAssertEqual(StreamTimeline(unit: 1.0 / 1000, start: Int64.min + 10).timestamp(-1e300), .min)
        XCTAssertEqual(StreamTimeline(unit: 0, start: 7).timestamp(3), 7, "a zero time base")
        XCTAssertEqual(StreamTimeline(unit: 1.0 / 1000, start: 0).timestamp(.nan), .min)
    }
}
