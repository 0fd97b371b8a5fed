import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

// MARK: - A room on the realtime clock

extension RoomTests {
    /// On the realtime clock a room never waits for its participants to open, so the one large
    /// from the first frame is large before its source has said it has video. Its video starts
    /// once the source has opened: a room of one shows its red clip within half a second, not
    /// the grey area it showed for the whole story before.
    func testARealtimeRoomShowsTheVideoOfTheParticipantLargeFromTheStart() throws {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 144, "height": 256, "fps": 10}, "duration": 1.5, "clock": "realtime",
         "stories": [{"id": "panel", "room": {"participants": [{"id": "ana", "uri": "ana.mp4", "avatar": "orange.jpg"}]}}]}
        """, folder: folder.path)
        let output = ScratchFolder()
        let (summary, trace, _) = try render(board, into: output)
        let videoPlays = trace.of(.play).filter { $0.participant == "ana" && $0.media == nil }
        XCTAssertEqual(videoPlays.count, 1, "\(trace.map(\.jsonLine))")
        XCTAssertLessThan(videoPlays.first?.t ?? 99, 0.5)
        XCTAssertEqual(trace.of(.firstFrame).filter { $0.participant == "ana" }.count, 1)
        for n in [8, 12] where !summary.lateFrames.contains(n) {
            XCTAssertEqual(dominantChannel(try largeCentre(output, frame: n)), "red", "frame \(n)")
        }
    }

    /// A landscape camera is fitted whole into the large area: both its edges show, on either
    /// clock. The clip is
    /// green with a red bar down its left tenth and a blue one down its right tenth; covering
    /// the area instead would show only its green middle.
    func testALandscapeCameraKeepsBothEdgesOnEitherClock() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=green:s=320x180:r=30:d=2,drawbox=x=0:y=0:w=32:h=180:color=red:t=fill,"
                        + "drawbox=x=288:y=0:w=32:h=180:color=blue:t=fill",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", folder.file("wide.mp4")])
        let layout = RoomLayout(width: 144, height: 256)
        let fitted = layout.fittedVideoSize(for: (320, 180))
        for clock in ["virtual", "realtime"] {
            let board = try Storyboard.parse("""
            {"canvas": {"width": 144, "height": 256, "fps": 10}, "duration": 1.2, "clock": "\(clock)",
             "stories": [{"id": "panel", "room": {"participants": [{"id": "cam", "uri": "wide.mp4"}]}}]}
            """, folder: folder.path)
            let output = ScratchFolder()
            let (summary, _, _) = try render(board, into: output)
            let n = [10, 9, 11].first { !summary.lateFrames.contains($0) }!
            let frame = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, n))
            let centre = layout.largeCentre
            func colour(_ dx: Double) -> String { dominantChannel(frame[Int(centre.x + dx * Double(fitted.width)), Int(centre.y)]) }
            XCTAssertEqual(colour(-0.46), "red", "\(clock): the left edge")
            XCTAssertEqual(colour(0), "green", "\(clock): the middle")
            XCTAssertEqual(colour(0.46), "blue", "\(clock): the right edge")
        }
    }
}

extension RoomTests {
    /// On the realtime clock a participant large before its source answers shows its avatar
    /// (loaded first, on its thread) while the source opens, not the grey panel it showed until
    /// the source opened. Here the source never answers: a server that accepts and stays silent.
    func testARealtimeRoomShowsTheAvatarWhileTheSourceOpens() throws {
        try LiveServers.require("python3")
        let servers = ServerSet()
        defer { servers.stopAll() }
        let port = try servers.stallingServer()
        let board = try Storyboard.parse("""
        {"canvas": {"width": 144, "height": 256, "fps": 10}, "duration": 1, "clock": "realtime",
         "timeouts": {"open": 5, "read": 5, "retries": 0},
         "stories": [{"id": "panel", "room": {"participants": [
           {"id": "ana", "uri": "http://127.0.0.1:\(port)/live.m3u8", "live": true, "avatar": "orange.jpg"}]}}]}
        """, folder: folder.path)
        let output = ScratchFolder()
        let (summary, _, _) = try render(board, into: output)
        let n = [6, 5, 7].first { !summary.lateFrames.contains($0) }!
        // The avatar in its circle at the area's centre: orange (red well above green and blue).
        XCTAssertEqual(dominantChannel(try largeCentre(output, frame: n)), "red", "frame \(n)")
    }
}

extension RoomTests {
    /// The large video is fitted by each picture's own shape, not by what the probe said: a
    /// camera that starts portrait (the probe sees 180x320) and turns landscape (320x180, a red
    /// bar down its left tenth, a blue one down its right tenth) shows both bars once it has
    /// turned. Sized from the probe, the landscape pictures covered a portrait box and lost
    /// their sides, as a live camera the probe could not size did.
    func testACameraThatTurnsLandscapeMidStreamIsFittedByItsPictures() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=green:s=180x320:r=30:d=1", "-c:v", "libx264", "-preset", "ultrafast",
                    "-pix_fmt", "yuv420p", "-f", "mpegts", folder.file("portrait.ts")])
        try ffmpeg(["-f", "lavfi", "-i", "color=c=green:s=320x180:r=30:d=2,drawbox=x=0:y=0:w=32:h=180:color=red:t=fill,"
                        + "drawbox=x=288:y=0:w=32:h=180:color=blue:t=fill",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-output_ts_offset", "1", "-f", "mpegts",
                    folder.file("landscape.ts")])
        let turning = try Data(contentsOf: URL(fileURLWithPath: folder.file("portrait.ts")))
            + Data(contentsOf: URL(fileURLWithPath: folder.file("landscape.ts")))
        try turning.write(to: URL(fileURLWithPath: folder.file("turning.ts")))
        let board = try Storyboard.parse("""
        {"canvas": {"width": 144, "height": 256, "fps": 10}, "duration": 2.5,
         "stories": [{"id": "panel", "room": {"participants": [{"id": "cam", "uri": "turning.ts"}]}}]}
        """, folder: folder.path)
        let output = ScratchFolder()
        try render(board, into: output)
        let frame = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, 20))
        let layout = RoomLayout(width: 144, height: 256)
        let fitted = layout.fittedVideoSize(for: (320, 180))
        func colour(_ dx: Double) -> String {
            dominantChannel(frame[Int(layout.largeCentre.x + dx * Double(fitted.width)), Int(layout.largeCentre.y)])
        }
        XCTAssertEqual(colour(-0.46), "red", "the left edge")
        XCTAssertEqual(colour(0), "green", "the middle")
        XCTAssertEqual(colour(0.46), "blue", "the right edge")
    }
}
