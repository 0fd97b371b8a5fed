import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// Issue 28, "Rooms": a landscape camera in the large view, the timeline of a room, a failed
/// participant, and `still` on a room.
final class RoomRoundThreeTests: XCTestCase {
    var folder: ScratchFolder!

    override func setUpWithError() throws {
        try LiveServers.require("ffmpeg")
        folder = ScratchFolder()
        // Two speakers, each a solid colour with a tone in its own seconds (as RoomTests').
        for (id, colour, tone, start) in [("ana", "red", 440, 0.0), ("ben", "green", 550, 2.0)] {
            try ffmpeg(["-f", "lavfi", "-i", "color=c=\(colour):s=180x320:r=30:d=5",
                        "-f", "lavfi", "-i", "sine=frequency=\(tone):sample_rate=48000:duration=5",
                        "-af", "volume=enable='not(between(t,\(start),\(start + 2)))':volume=0",
                        "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                        folder.file("\(id).mp4")])
        }
        for colour in ["orange", "purple", "teal"] {
            try ffmpeg(["-f", "lavfi", "-i", "color=c=\(colour):s=64x64", "-frames:v", "1", folder.file("\(colour).jpg")])
        }
    }

    override func tearDown() { folder = nil }

    func board(_ participants: String, width: Int = 144, duration: Double = 1, script: String = "") throws -> Storyboard {
        try Storyboard.parse("""
        {"canvas": {"width": \(width), "height": \(width * 16 / 9), "fps": 10}, "duration": \(duration),
         "stories": [{"id": "panel", "room": {"participants": [\(participants)]}, "duration": 20}], "script": [\(script)]}
        """, folder: folder.path)
    }

    // MARK: - Item 4: a landscape camera is fitted whole

    /// A 1280x720 camera whose left edge is blue and right edge green: the large view shows both
    /// edges (the whole picture, fitted), and above and below it the picture's own colours,
    /// blurred and darkened, not black bars.
    func testALandscapeCameraIsFittedWholeOverABlurredFillOfItself() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=red:s=1280x720:r=30:d=2",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2",
                    "-vf", "drawbox=x=0:y=0:w=160:h=720:color=blue:t=fill,drawbox=x=1120:y=0:w=160:h=720:color=lime:t=fill",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                    folder.file("wide.mp4")])
        let width = 288
        let (_, events, output) = try render(board(#"{"id": "cam", "uri": "wide.mp4"}"#, width: width, duration: 0.5))
        XCTAssertEqual(events.of(.failed), [], "\(events.map(\.jsonLine))")
        let frame = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, 3))
        let area = RoomLayout(width: width, height: width * 16 / 9).large
        // The picture fitted: the area's width, 16:9, centred.
        let shownHeight = area.width * 720 / 1280
        let top = area.y + (area.height - shownHeight) / 2
        let middle = Int(top + shownHeight / 2)
        func colour(_ fraction: Double, _ y: Int) -> RGBAColor { frame[Int(area.x + area.width * fraction), y] }
        XCTAssertLessThan(colour(0.05, middle).distance(to: RGBAColor(red: 0, green: 0, blue: 255)), 60,
                          "the left edge (blue) is shown: \(colour(0.05, middle))")
        XCTAssertLessThan(colour(0.95, middle).distance(to: RGBAColor(red: 0, green: 255, blue: 0)), 60,
                          "the right edge (green) is shown: \(colour(0.95, middle))")
        XCTAssertLessThan(colour(0.5, middle).distance(to: RGBAColor(red: 255, green: 0, blue: 0)), 60, "the centre is red")
        // Above and below: the picture's red, blurred and darkened; not black, not the placeholder.
        for y in [Int(area.y + (top - area.y) / 2), Int(top + shownHeight + (area.y + area.height - top - shownHeight) / 2)] {
            let fill = colour(0.5, y)
            XCTAssertGreaterThan(Int(fill.red), 60, "a fill of the picture's own colour at y \(y): \(fill)")
            XCTAssertGreaterThan(Int(fill.red), Int(fill.green) + 30, "reddish at y \(y): \(fill)")
            XCTAssertLessThan(Int(fill.red), 250, "darkened at y \(y): \(fill)")
        }
    }

    // MARK: - Item 6: a failed participant

    /// The room goes on without its failed participant: no failed story; the failure names the
    /// participant, under `failed_participants`.
    func testAFailedParticipantIsNotAFailedStory() throws {
        let (summary, events, _) = try render(board(#"{"id": "ana", "uri": "ana.mp4"}, {"id": "gone", "uri": "missing.mp4", "avatar": "teal.jpg"}"#))
        XCTAssertEqual(events.of(.failed).map(\.participant), ["gone"])
        let json = summary.json
        XCTAssertTrue(json.contains(#""failed_stories": [],"#), json)
        XCTAssertTrue(json.contains(#""failed_participants": [{"story": "panel", "participant": "gone", "error": "#), json)
        XCTAssertFalse(json.contains("item 0"), json)
        XCTAssertTrue(json.contains(#"{"id": "panel", "plays": "#) && json.contains(#""failures": 0, "errors": []"#), json)
    }

    // MARK: - Item 5: the timeline of a room

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

    // MARK: - Item 7: `still` on a room

    /// The still of a room at time T is the frame a render shows at T: the layout with who is
    /// large then (the speaker from the sound up to T), and the strip.
    func testAStillOfARoomIsTheRenderedFrame() throws {
        let board = try board(#"{"id": "ana", "uri": "ana.mp4", "avatar": "orange.jpg"}, {"id": "ben", "uri": "ben.mp4", "avatar": "purple.jpg"}"#,
                              duration: 3.6)
        let (_, events, output) = try render(board)
        XCTAssertEqual(events.of(.speaker).map(\.participant), ["ana", "ben"], "ben speaks from 2 s")
        for (time, frameNumber) in [(1.0, 10), (3.5, 35)] {
            let frame = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, frameNumber))
            let still = try StillRender.render(board, pageOffset: 0, time: time)
            XCTAssertEqual(still.problems, [])
            XCTAssertEqual(still.image.width, frame.width)
            var worst = 0, differing = 0
            for y in 0..<frame.height {
                for x in 0..<frame.width {
                    let d = still.image[x, y].distance(to: frame[x, y])
                    worst = max(worst, d)
                    if d > 8 { differing += 1 }
                }
            }
            XCTAssertEqual(differing, 0, "the still at \(time) s is frame \(frameNumber) (worst difference \(worst))")
        }
    }
}
