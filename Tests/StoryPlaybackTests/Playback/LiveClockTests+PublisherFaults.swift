import Compositor
import Foundation
import Synchronization
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

// MARK: - What publishers really do: restarts, uneven timestamps, video that never decodes

/// Each with both publisher families, read back from the frames: a publisher that restarts at
/// the same name while nginx-rtmp holds the viewer's connection, timestamps that jitter around
/// a steady 30 fps, and an SRT stream whose H.264 never gets its parameter sets.
extension LiveClockTests {
    // MARK: - A publisher that restarts

    /// The publisher stops 3 s into the render and a new one publishes to the same name 2 s
    /// later, with the storyboard's default timeouts: nginx-rtmp keeps the viewer through it,
    /// so the return is the new publisher's timestamps starting again on the same connection.
    /// The new session is played near its edge again: the old one's rebuffer had raised the
    /// target to 0.6 s, and the returned publisher played 0.25-0.44 s behind, at 0.97 speed,
    /// falling 30 ms further behind each second.
    func testAPublisherThatRestartsIsPlayedAtTheNewEdge() throws {
        try LiveServers.require("nginx")
        let port = try servers.rtmpServer()
        for family in ClockCodedPublisher.allCases {
            let url = "rtmp://127.0.0.1:\(port)/live/restarts-\(family.rawValue)"
            let publishers = try dropAndReturn(family, url: url)
            defer { publishers.returning.stop() }
            let board = try board(url, clock: .realtime, seconds: 11)
            let (reading, stop, events) = try watch(board)
            let gone = try XCTUnwrap(publishers.dropped.withLock { $0 }, "the first publisher was stopped")

            // The return is traced: how long no picture came, and how far behind it came back.
            let back = try XCTUnwrap(events.of(.reconnect).first { $0.gapMs != nil }, "\(family): \(events.map(\.jsonLine))")
            let gap = try XCTUnwrap(back.gapMs)
            XCTAssertTrue((1500...6000).contains(gap), "\(family): the publisher was away 2 s and more (its restart): \(gap) ms")
            XCTAssertLessThan(try XCTUnwrap(back.offsetMs), 400 * LiveClockTests.slack, "\(family): back near the edge")
            XCTAssertLessThanOrEqual(try XCTUnwrap(stop.live).rebuffers, 2, "\(family): the gap is one rebuffer, not a new one each second")

            // What reached the screen: the new publisher's pictures, smooth and near the edge.
            let startedAt = try XCTUnwrap(reading.startedAt)
            let returned = try XCTUnwrap(reading.codes.indices.first { n in
                reading.codes[n].map { reading.made($0, frame: n, startedAt: startedAt) > gone } ?? false
            }, "\(family): no picture of the returning publisher was shown")
            let after = reading.suffix(reading.codes.count - returned - 60)
            XCTAssertGreaterThanOrEqual(after.distinctPerSecond, LiveClockTests.smooth(.realtime),
                                        "\(family): from 2 s after the return: \(after.diagnosis)")
            let latency = try XCTUnwrap(reading.suffix(60).latencyP50, "\(family): the last 2 s")
            XCTAssertLessThan(latency, 300 * LiveClockTests.slack,
                              "\(family): the last 2 s, read from the frames (ffmpeg's was 344-440 ms with the old session's target)")
            let settled = try XCTUnwrap(stop.live?.series.last?.ms, "\(family): the offset of the last second")
            XCTAssertLessThan(settled, 350 * LiveClockTests.slack, "\(family): within 0.25 s of the 0.1 s target: \(stop.live?.series ?? [])")
        }
    }

    // MARK: - Timestamps that jitter around a steady rate

    /// A 30 fps source stamped 23 and 43 ms apart in turn (ffmpeg's `setpts`, GStreamer's
    /// `do-timestamp` from a generator that writes every odd picture early): each picture is
    /// shown, in a frame of its own, on the cadence the player estimates. At their own times two
    /// pictures fell due in one frame and the next had none: 24-27 distinct a second, one
    /// picture in six skipped.
    func testUnevenTimestampsAreShownOnTheirCadence() throws {
        try LiveServers.require("nginx")
        let port = try servers.rtmpServer()
        for family in ClockCodedPublisher.allCases {
            let url = "rtmp://127.0.0.1:\(port)/live/uneven-\(family.rawValue)"
            let publisher = try servers.publishClockCoded(family, to: .rtmp(url: url), quirk: .unevenTimestamps)
            defer { publisher.stop() }
            try waitUntilPlayable(url, publisher: publisher)
            let (reading, _, events) = try watch(board(url, clock: .realtime, seconds: 8))
            let locked = try XCTUnwrap(events.of(.cadence).first { $0.jitterMs != nil }, "\(family): \(events.map(\.jsonLine))")
            XCTAssertEqual(try XCTUnwrap(locked.fps), 30, accuracy: 0.5, "\(family): the estimate")
            XCTAssertGreaterThan(try XCTUnwrap(locked.jitterMs), 2, "\(family): the timestamps did jitter")
            XCTAssertLessThan(locked.t, 3, "\(family): locked within the first pictures")

            // From 1 s after the lock: every picture is shown, and none late against the cadence.
            let steady = reading.suffix(reading.codes.count - Int((locked.t + 1) * reading.fps))
            let pace = steady.cadence
            // At their own times, one picture in six or seven was never shown (32-40 in 10 s).
            XCTAssertLessThanOrEqual(pace.skipped, 8, "\(family): pictures never shown: \(steady.diagnosis)")
            XCTAssertLessThanOrEqual(pace.late, 4, "\(family): pictures shown more than a frame late: \(steady.diagnosis)")
            XCTAssertGreaterThanOrEqual(steady.distinctPerSecond, LiveClockTests.smooth(.realtime), "\(family): \(steady.diagnosis)")
        }
    }

    // MARK: - Video that never decodes

    /// An SRT stream whose H.264 never gets its parameter sets, from both families, with sound:
    /// the item fails within the open timeout, saying why, and the render goes on to the next
    /// story. With the item's time shorter than the open timeout it fails when its time runs out
    /// (it used to end as if it had played: `opened`, `ended`, `stop`).
    func testSRTVideoThatNeverDecodesFailsAndTheRenderGoesOn() throws {
        for family in ClockCodedPublisher.allCases {
            for itemSeconds in [6.0, 2.0] {
                let port = LiveServers.freePort()
                let process = try servers.publishClockCoded(family, to: .srtListener(port: port), quirk: .withheldParameterSets)
                defer { process.stop() }
                guard LiveServers.waitUntil(15, { LiveServers.udpBound(port: port) }) else {
                    throw LiveServers.unavailable("\(family)'s SRT listener did not start: \(process.output)")
                }
                let board = try Storyboard.parse("""
                {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": \(itemSeconds + 1), "clock": "realtime",
                 "timeouts": {"open": 3, "read": 3},
                 "stories": [{"id": "live", "items": [{"uri": "srt://127.0.0.1:\(port)?mode=caller", "duration": \(itemSeconds)}]},
                             {"id": "after", "items": [{"uri": "\(Fixture.sample("beach.mp4"))", "duration": 1}]}]}
                """)
                let output = ScratchFolder()
                let (summary, events, _) = try render(board, into: output)
                let label = "\(family), item of \(itemSeconds) s"
                let failed = try XCTUnwrap(events.of(.failed).first { $0.story == "live" }, "\(label): \(events.map(\.jsonLine))")
                XCTAssertTrue(failed.error?.contains("no decodable picture: missing parameter sets") == true, "\(label): \(failed.error ?? "")")
                let play = try XCTUnwrap(events.of(.play).first { $0.story == "live" })
                XCTAssertLessThanOrEqual(failed.t - play.t, min(itemSeconds, 3 + 1) + 0.2, "\(label): failed within the open timeout + 1 s")
                XCTAssertEqual(events.of(.ended).filter { $0.story == "live" }, [], "\(label): a story that showed nothing did not end")
                XCTAssertEqual(summary.failedStories.map(\.id), ["live"], label)
                // The render went on: the next story played and reached the screen.
                XCTAssertTrue(events.of(.firstFrame).contains { $0.story == "after" }, "\(label): \(events.map(\.jsonLine))")
                let last = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, summary.frames - 1))
                XCTAssertGreaterThan(Set(stride(from: 0, to: last.pixels.count, by: 4 * 97).map { last.pixels[$0] }).count, 8,
                                     "\(label): the last frame shows the next story's picture, not a blank")
            }
        }
    }
}

extension ClockCode.Reading {
    /// How the pictures kept to a steady 1:1 cadence with the frames (a 30 fps source on a 30 fps
    /// timeline): `skipped`, pictures between the first and last shown that never were; `late`,
    /// pictures that first showed more than a frame after the place the median gives them.
    /// Frames written late (copies) are the machine's, not the player's: a picture due in one
    /// counts neither way.
    var cadence: (skipped: Int, late: Int) {
        var first: [Int: Int] = [:]
        for (n, code) in codes.enumerated() {
            if let code, first[code.number] == nil { first[code.number] = n }
        }
        guard let low = first.keys.min(), let high = first.keys.max() else { return (0, 0) }
        let lags = first.map { $0.value - $0.key }.sorted()
        let base = lags[lags.count / 2]
        let missing = (low...high).filter { first[$0] == nil && !late.contains($0 + base) && !late.contains($0 + base + 1) }
        let lateOnes = first.filter { $0.value - $0.key - base > 1 && !late.contains($0.value - 1) }
        return (missing.count, lateOnes.count)
    }
}
