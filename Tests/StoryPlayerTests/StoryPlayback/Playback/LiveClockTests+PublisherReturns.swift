import Compositor
import Foundation
import Synchronization
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import XCTest

// MARK: - A publisher that drops and comes back

extension LiveClockTests {
    /// A phone on a train: the publisher's connection drops (its process ends, as an app killed
    /// by the system does) and a new one publishes to the same name 2 s later. The viewer must
    /// hold the last picture through the gap, then show the new publisher's pictures, smoothly
    /// and near the edge again, without the story failing. Read from the frames for both
    /// families of publisher: the returning pictures are those made after the first had gone.
    func testAPublisherThatDropsAndReturnsIsShownAgain() throws {
        try LiveServers.require("nginx")
        let port = try servers.rtmpServer()
        for family in ClockCodedPublisher.allCases {
            let url = "rtmp://127.0.0.1:\(port)/live/returns-\(family.rawValue)"
            let leaving = try servers.publishClockCoded(family, to: .rtmp(url: url))
            guard LiveServers.waitUntil(20, { (try? MediaProbe.run(url, timeouts: Timeouts(open: 1.5, read: 1.5))) != nil }) else {
                throw LiveServers.unavailable("\(family) RTMP never became playable: \(leaving.output)")
            }
            // The first publisher ends 3 s into the render; the second starts 2 s after that.
            let returning = try servers.publishClockCoded(family, to: .rtmp(url: url), after: 5)
            defer { returning.stop() }
            let dropped = Mutex<Double?>(nil)
            DispatchQueue.global().asyncAfter(deadline: .now() + 3) {
                leaving.stop()
                dropped.withLock { $0 = Date().timeIntervalSince1970 }
            }
            let board = try board(url, clock: .realtime, seconds: 13,
                                  extra: #", "timeouts": {"open": 3, "read": 1, "retries": 6}"#)
            let (reading, _, events) = try watch(board)
            let gone = try XCTUnwrap(dropped.withLock { $0 }, "the first publisher was stopped")
            let failed = events.of(.failed).map { $0.error ?? "" }
            XCTAssertEqual(failed, [], "\(family): a publisher that comes back within the retries is not a failure")
            XCTAssertGreaterThanOrEqual(events.of(.reconnect).count, 1, "\(family): \(events.map(\.event.rawValue))")

            // Through the gap the last picture stays on screen: from the first coded frame on,
            // every frame shows a picture (none is a loading card or black).
            let firstShown = try XCTUnwrap(reading.codes.firstIndex { $0 != nil }, "\(family): no picture at all")
            let blank = reading.codes[firstShown...].filter { $0 == nil }.count
            XCTAssertEqual(blank, 0, "\(family): frames without a picture after the first one")

            // The returning publisher's pictures reach the screen: made after the first had gone.
            let startedAt = try XCTUnwrap(reading.startedAt, "a realtime render's summary has clock_started_at")
            let madeAfterReturn = reading.codes.enumerated().compactMap { n, code -> Int? in
                guard let code, reading.made(code, frame: n, startedAt: startedAt) > gone else { return nil }
                return n
            }
            let resumedAt = try XCTUnwrap(madeAfterReturn.first, "\(family): no picture of the second publisher was shown")
            let resumedSecond = Double(resumedAt) / reading.fps
            XCTAssertLessThan(resumedSecond, 11, "\(family): pictures resume within the retries' backoff")

            // And they flow as before, near the edge.
            let tail = ClockCode.Reading(codes: Array(reading.codes.suffix(45)), fps: reading.fps,
                                         startedAt: startedAt + Double(reading.codes.count - 45) / reading.fps)
            XCTAssertGreaterThanOrEqual(tail.distinctPerSecond, LiveClockTests.smooth(.realtime),
                                        "\(family): distinct pictures a second in the last 1.5 s")
            let latency = try XCTUnwrap(tail.latencyP50, "\(family): the last 1.5 s")
            XCTAssertLessThan(latency, 1000 * LiveClockTests.slack, "\(family): back near the edge after the return")
        }
    }
}
