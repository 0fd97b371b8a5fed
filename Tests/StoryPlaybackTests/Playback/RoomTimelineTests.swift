import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// The timeline of a room: audio players in lanes of their own, as many as max audio.
final class RoomTimelineTests: TwoSpeakerRoomTestCase {
    /// Audio players have lanes of their own, one per participant; the red band counts video
    /// players only, as `check` does; a failed participant is hatched on its own lane only.
    func testTheTimelineGivesAudioPlayersLanesOfTheirOwn() throws {
        let (_, events, _) = try render(board("""
        {"id": "ana", "uri": "ana.mp4"}, {"id": "ben", "uri": "ben.mp4"}, {"id": "cy", "uri": "ana.mp4"},
        {"id": "gone", "uri": "missing.mp4"}
        """, duration: 2))
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n"), maxAlive: 2), [])
        let layout = LifecycleTimeline.layout(events)
        XCTAssertEqual(layout.lanes, ["panel", "panel · ana", "panel · ben", "panel · cy", "panel · gone"])
        let image = LifecycleTimeline.render(events, maxAlive: 2)
        func count(_ colour: RGBAColor, lane: String) -> Int {
            guard let top = layout.laneTop(lane) else {
                XCTFail("no lane \(lane)")
                return 0
            }
            var n = 0
            for y in top..<(top + layout.laneHeight) {
                for x in layout.left..<(layout.width - layout.right) where image[x, y] == colour { n += 1 }
            }
            return n
        }
        for lane in layout.lanes {
            XCTAssertEqual(count(LifecycleTimeline.tooManyBand, lane: lane), 0, "no red band on \(lane): check says ok")
        }
        XCTAssertEqual(count(LifecycleTimeline.failedHatch, lane: "panel"), 0, "the room's lane is not hatched")
        XCTAssertEqual(count(LifecycleTimeline.failedHatch, lane: "panel · ana"), 0)
        XCTAssertGreaterThan(count(LifecycleTimeline.failedHatch, lane: "panel · gone"), 20, "the failed participant's lane")
    }

    /// `--max-audio`: more audio players alive than that is a red band on the audio lanes.
    func testTheTimelineBoundsAudioPlayersByMaxAudio() throws {
        let (_, events, _) = try render(board(#"{"id": "ana", "uri": "ana.mp4"}, {"id": "ben", "uri": "ben.mp4"}"#))
        let layout = LifecycleTimeline.layout(events, maxAlive: 2, maxAudio: 1)
        let image = LifecycleTimeline.render(events, maxAlive: 2, maxAudio: 1)
        let audioLane = try XCTUnwrap(layout.laneTop("panel · ben")), videoLane = try XCTUnwrap(layout.laneTop("panel"))
        let x = layout.x(0.5)
        XCTAssertEqual(image[x, audioLane + 3], LifecycleTimeline.tooManyBand, "two audio players alive, more than 1")
        XCTAssertNotEqual(image[x, videoLane + 3], LifecycleTimeline.tooManyBand, "the video lane is within bounds")
        XCTAssertTrue(layout.legend.contains { $0.text == "more than 1 audio" }, "\(layout.legend.map(\.text))")
    }
}
