import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

// MARK: - A recording that ends

extension RoomTests {
    /// A recorded participant whose file has played to its end has left the room. `talk` (red,
    /// a tone throughout) is 1.5 s long and the dominant speaker; `cam` (green, silent) runs
    /// 4 s. Silence keeps the last speaker, so before, `talk` stayed large with its last
    /// picture frozen while `cam` played in the strip. Now the large area goes to `cam` when
    /// `talk` ends, and once both have ended the large one shows its avatar, with no player
    /// left decoding: each one's audio player stops as it leaves.
    func testARecordingThatEndsGivesTheLargeAreaUp() throws {
        let (_, events, output) = try render(try talkAndCamBoard())
        XCTAssertEqual(events.of(.speaker).map(\.participant), ["talk"], "\(events.map(\.jsonLine))")
        XCTAssertEqual(dominantChannel(try largeCentre(output, frame: 10)), "red", "talk speaks, large, at 1 s")
        XCTAssertEqual(dominantChannel(try largeCentre(output, frame: 25)), "green",
                       "at 2.5 s talk's recording has ended: cam is large, not talk's last picture")

        let video = events.filter { $0.media == nil && ($0.event == .play || $0.event == .stop) }
        let talkStop = try XCTUnwrap(video.first { $0.event == .stop && $0.participant == "talk" })
        XCTAssertEqual(talkStop.t, 1.5, accuracy: 0.1 + 1e-9, "talk's video stops when its recording ends")
        let camPlay = try XCTUnwrap(video.first { $0.event == .play && $0.participant == "cam" })
        XCTAssertEqual(camPlay.t, talkStop.t, accuracy: 1e-9, "cam's video starts at the same frame")
        let camStop = try XCTUnwrap(video.first { $0.event == .stop && $0.participant == "cam" }, "\(video.map(\.jsonLine))")
        XCTAssertEqual(camStop.t, 4, accuracy: 0.1 + 1e-9, "once everyone has left, no video plays on")
        XCTAssertEqual(video.filter { $0.event == .play }.count, 2, "\(video.map(\.jsonLine))")
        // Each one's audio player is dropped as it leaves, once its last 100 ms of sound has
        // been measured (at most a window after its video), not kept alive with a finished file
        // until the room ends at 5 s; and stopped once.
        let audioStops = events.filter { $0.media == "audio" && $0.event == .stop }
        XCTAssertEqual(audioStops.map(\.participant), ["talk", "cam"], "\(audioStops.map(\.jsonLine))")
        for (stop, video) in zip(audioStops, [talkStop, camStop]) {
            XCTAssertGreaterThanOrEqual(stop.t, video.t - 1e-9, stop.jsonLine)
            XCTAssertLessThanOrEqual(stop.t, video.t + 0.1 + 1e-9, stop.jsonLine)
        }

        // The last frame shows an avatar (teal or purple over its blurred self), not a
        // recording's frozen last picture (red or green); it fades there from cam's last
        // picture over RoomStage.crossfade (a quarter second), as a switch does, not at once.
        let last = try largeCentre(output, frame: 48)
        XCTAssertFalse(["red", "green"].contains(dominantChannel(last)), "the large area at 4.8 s: \(last)")
        let green = try largeCentre(output, frame: 39), fading = try largeCentre(output, frame: 41)
        XCTAssertGreaterThan(fading.distance(to: green), 20, "at 4.1 s the picture has begun to change: \(fading)")
        XCTAssertGreaterThan(fading.distance(to: last), 20, "at 4.1 s it is not yet the avatar: \(fading), then \(last)")
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n"), maxAlive: 1, maxAudio: 2), [])
    }

    /// `talk`: red, a tone throughout, 1.5 s; `cam`: green, silent, 4 s; a 5 s room at 10 fps.
    func talkAndCamBoard() throws -> Storyboard {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=red:s=180x320:r=30:d=1.5",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1.5",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                    folder.file("talk.mp4")])
        try ffmpeg(["-f", "lavfi", "-i", "color=c=green:s=180x320:r=30:d=4",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p", folder.file("cam.mp4")])
        return try roomBoard(participants: """
        {"id": "talk", "uri": "talk.mp4", "avatar": "teal.jpg"}, {"id": "cam", "uri": "cam.mp4", "avatar": "purple.jpg"}
        """, duration: 5)
    }

    /// Shards of a room whose recordings end merge into the whole render: its trace, with each
    /// participant's audio player stopped once as it leaves (in the shard before the cut, in
    /// the one after it, or in a shard's fast-forward), and its frames, but for those of a fade
    /// a shard starting inside it does not draw. `talk` leaves at frame 15, `cam` at 40.
    func testShardsOfARoomWhoseRecordingsEndMergeIntoTheWholeRender() throws {
        let board = try talkAndCamBoard()
        let (whole, wholeTrace, wholeFolder) = try render(board)
        XCTAssertEqual(whole.frames, 50)
        let expected = comparableLines(wholeTrace)
        let fades = [15, 40] // 0.25 s: this frame and the next two
        for cut in [8, 14, 15, 16, 17, 18, 39, 40, 41, 45] {
            let shards = try [0..<cut, cut..<50].map { range in try render(board) { $0.frameRange = range } }
            let merged = ScratchFolder()
            _ = try ShardMerge.merge(shards.map(\.folder.path), into: merged.path)
            let text = try String(contentsOfFile: merged.file("lifecycle.jsonl"), encoding: .utf8)
            let joined = comparableLines(LifecycleTimeline.events(fromJSONLines: text))
            XCTAssertEqual(joined, expected, "cut at \(cut): \(firstDifference(joined, expected))")
            XCTAssertEqual(TraceCheck.check(text, maxAlive: 1, maxAudio: 2), [], "cut at \(cut)")
            for n in 0..<50 {
                let skippedFade = fades.contains { $0 <= cut && cut < $0 + 3 && n >= cut && n < $0 + 3 }
                let same = FileManager.default.contentsEqual(atPath: StoryRenderer.framePath(merged.path, n),
                                                             andPath: StoryRenderer.framePath(wholeFolder.path, n))
                XCTAssertEqual(same, !skippedFade, "cut at \(cut), frame \(n)")
            }
        }
    }

    /// A recording made large mid-room is shown where the room is in it, in step with its
    /// voice. `late` speaks from 2 s; its picture is blue until 3 s, yellow after. It is large
    /// from about 2.6 s, so at 4.5 s its picture is yellow. Before, its video started from its
    /// first picture when it became large: blue until about 5.6 s, 2.6 s behind its voice.
    func testARecordingMadeLargeIsShownWhereTheRoomIsInIt() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=red:s=180x320:r=30:d=6",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=6",
                    "-af", "volume=enable='gte(t,1.5)':volume=0",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                    folder.file("early.mp4")])
        try ffmpeg(["-f", "lavfi", "-i", "color=c=blue:s=180x320:r=30:d=6,drawbox=x=0:y=0:w=180:h=320:color=yellow:t=fill:enable='gte(t,3)'",
                    "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000:duration=6",
                    "-af", "volume=enable='lt(t,2)':volume=0",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                    folder.file("late.mp4")])
        let board = try roomBoard(participants: """
        {"id": "early", "uri": "early.mp4"}, {"id": "late", "uri": "late.mp4"}
        """, duration: 5)
        let (_, events, output) = try render(board)
        XCTAssertEqual(events.of(.speaker).map(\.participant), ["early", "late"], "\(events.map(\.jsonLine))")
        let switched = try XCTUnwrap(events.of(.speaker).last).t
        XCTAssertLessThan(switched, 3, "late is large before its picture turns yellow")
        let centre = try largeCentre(output, frame: 45)
        XCTAssertLessThan(centre.distance(to: RGBAColor(red: 255, green: 255, blue: 0)), 60,
                          "frame 45: yellow, late's picture at 4.5 s, not blue: \(centre)")
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n"), maxAlive: 1, maxAudio: 2), [])
    }
}
