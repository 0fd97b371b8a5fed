import Foundation
@testable import StoryMedia
@testable import StoryPlayback
import StoryBase
import StoryPlayerTestSupport
import XCTest

/// A pushed source's opening burst: the decode thread starts at its newest picture.
final class PushBacklogTests: XCTestCase {
    func picture(_ time: Double, spans: FirstFrameSpans? = nil) -> PushBacklog.Picture {
        PushBacklog.Picture(time: time, picture: DecodedPicture(frame: Frame(), time: time), spans: spans)
    }

    func testTheBurstIsPassedOverAndTheNewestShownFirst() {
        var backlog = PushBacklog(isPushed: true)
        let spans = FirstFrameSpans(openMs: 300, firstPacketMs: 310, firstFrameMs: 320)
        // Ten pictures 1/30 s apart in stream time, decoded 2 ms apart: read while the source
        // was being opened.
        for i in 0..<10 {
            XCTAssertEqual(backlog.take(picture(Double(i) / 30, spans: i == 0 ? spans : nil), now: 100 + Double(i) * 0.002).count, 0)
        }
        // The next one waited for the network: the burst is over.
        let queued = backlog.take(picture(10.0 / 30), now: 100.05)
        XCTAssertEqual(queued.map(\.time), [9.0 / 30, 10.0 / 30], "the burst's newest, then the live one")
        XCTAssertEqual(queued.first?.spans, spans, "the first picture queued carries the first-frame spans")
        XCTAssertNil(queued.last?.spans)
        XCTAssertEqual(backlog.passedOver, 9)
        XCTAssertFalse(backlog.isDraining)
        XCTAssertEqual(backlog.take(picture(11.0 / 30), now: 100.051).map(\.time), [11.0 / 30], "after the burst every picture is queued")
    }

    func testAStreamWithoutABacklogLosesNothing() {
        var backlog = PushBacklog(isPushed: true)
        XCTAssertEqual(backlog.take(picture(0), now: 100).count, 0)
        XCTAssertEqual(backlog.take(picture(1.0 / 30), now: 100 + 1.0 / 30).map(\.time), [0, 1.0 / 30])
        XCTAssertEqual(backlog.passedOver, 0)
    }

    func testASourceFasterThanRealTimeIsNotABacklogForLong() {
        var backlog = PushBacklog(isPushed: true)
        var queued: [Double] = []
        for i in 0..<200 { queued += backlog.take(picture(Double(i) / 30), now: 100 + Double(i) * 0.001).map(\.time) }
        XCTAssertEqual(backlog.passedOver, 89, "less than \(PushBacklog.maxSeconds) s of the stream's start is passed over")
        XCTAssertEqual(queued.prefix(2), [89.0 / 30, 90.0 / 30])
    }

    func testSegmentedAndRecordedSourcesAreUntouched() {
        var backlog = PushBacklog(isPushed: false)
        XCTAssertEqual(backlog.take(picture(0), now: 100).map(\.time), [0])
        XCTAssertEqual(backlog.take(picture(1.0 / 30), now: 100.001).map(\.time), [1.0 / 30])
    }

    func testWhatIsHeldIsFlushedAtTheEnd() {
        var backlog = PushBacklog(isPushed: true)
        _ = backlog.take(picture(0), now: 100)
        XCTAssertEqual(backlog.flush().map(\.time), [0])
        XCTAssertEqual(backlog.flush().count, 0)
    }
}
