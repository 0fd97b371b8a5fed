import CFFmpeg
@testable import StoryMedia
import StoryPlayerTestSupport
import XCTest

/// Sound frames without a timestamp (all but the first AAC frame of an MPEG-TS packet whose
/// stream's rate the demuxer had not learnt) follow the frame before, instead of being dropped.
final class SoundFrameTimesTests: XCTestCase {
    let untimed = cffmpeg_nopts_value()

    func testAnUntimedFrameFollowsTheOneBefore() {
        // 90 kHz, as MPEG-TS counts; the stream starts at timestamp 9000 (0.1 s).
        var times = SoundFrameTimes(StreamTimeline(unit: 1.0 / 90_000, start: 9000))
        XCTAssertEqual(times.time(timestamp: 126_000, samples: 1024, rate: 48_000)!, 1.3, accuracy: 1e-9)
        XCTAssertEqual(times.time(timestamp: untimed, samples: 1024, rate: 48_000)!, 1.3 + 1024.0 / 48_000, accuracy: 1e-9)
        XCTAssertEqual(times.time(timestamp: untimed, samples: 1024, rate: 48_000)!, 1.3 + 2048.0 / 48_000, accuracy: 1e-9)
        // The next packet's own timestamp wins over the count.
        XCTAssertEqual(times.time(timestamp: 153_000, samples: 1024, rate: 48_000)!, 1.6, accuracy: 1e-9)
    }

    func testAnUntimedFirstFrameHasNoTime() {
        var times = SoundFrameTimes(StreamTimeline(unit: 1.0 / 1000, start: 0))
        XCTAssertNil(times.time(timestamp: untimed, samples: 1024, rate: 44_100))
        XCTAssertEqual(times.time(timestamp: 500, samples: 1024, rate: 44_100)!, 0.5, accuracy: 1e-9)
    }

    func testAFrameOfUnknownRateTimesNoFrameAfterIt() {
        var times = SoundFrameTimes(StreamTimeline(unit: 1.0 / 1000, start: 0))
        XCTAssertEqual(times.time(timestamp: 200, samples: 1024, rate: 0)!, 0.2, accuracy: 1e-9)
        XCTAssertNil(times.time(timestamp: untimed, samples: 1024, rate: 48_000))
    }
}
