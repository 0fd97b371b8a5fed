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

// MARK: - A stream that has ended plays out

extension LiveClockTests {
    /// Clock-coded H.264 (pictures 0, 1, … at 30 fps) written as an HLS playlist of 1 s
    /// segments into `folder`/live.m3u8, served over HTTP; its URL. `finished: false` takes its
    /// `#EXT-X-ENDLIST` away: a live playlist that stopped changing.
    func clockCodedPlaylist(seconds: Int, folder name: String, finished: Bool = true) throws -> String {
        try LiveServers.require("ffmpeg", "python3")
        let folder = servers.folder.file(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let encode = try servers.start("bash", ["-c", "python3 '\(ClockCode.script)' --seconds \(seconds) | ffmpeg -v error -f rawvideo "
            + "-pix_fmt rgb24 -s 360x640 -r 30 -i - -c:v libx264 -preset veryfast -g 30 -pix_fmt yuv420p "
            + "-f hls -hls_time 1 -hls_list_size 0 '\(folder)/live.m3u8'"], name: "\(name)-encode")
        XCTAssertTrue(LiveServers.waitUntil(Double(seconds) + 30) { !encode.isRunning }, encode.output)
        if !finished {
            let written = try String(contentsOfFile: folder + "/live.m3u8", encoding: .utf8)
            XCTAssertTrue(written.contains("#EXT-X-ENDLIST"), written)
            try written.replacingOccurrences(of: "#EXT-X-ENDLIST\n", with: "")
                .write(toFile: folder + "/live.m3u8", atomically: true, encoding: .utf8)
        }
        return try servers.httpServer(root: folder) + "/live.m3u8"
    }

    /// A finished playlist (`#EXT-X-ENDLIST`, a recorded broadcast) played as live: it has no
    /// edge that moves, so it plays from its first picture to its last, on the realtime clock as
    /// on the virtual one. The realtime controller jumped its first seconds to reach a target
    /// behind an edge that would never move (56 of 146 pictures never shown).
    func testAFinishedPlaylistPlaysFromItsFirstPictureOnBothClocks() throws {
        let url = try clockCodedPlaylist(seconds: 4, folder: "finished")
        for clock in PlaybackClock.allCases {
            let board = try board(url, clock: clock, seconds: 6, saysLive: true)
            let (reading, stop, events) = try watch(board)
            let numbers = reading.codes.compactMap { $0?.number }
            // The realtime clock runs from the play: its first frames show the loading card
            // while the first picture comes (4 frames here), and the picture then shown is the
            // one due by then, the fourth.
            XCTAssertLessThanOrEqual(numbers.min() ?? .max, clock == .virtual ? 1 : 4,
                                     "\(clock): it starts at the first picture: \(reading.diagnosis)")
            XCTAssertGreaterThanOrEqual(Set(numbers).count, 112, "\(clock): every picture of 4 s plays: \(reading.diagnosis)")
            XCTAssertEqual(events.of(.ended, story: "live").count, 1, "\(clock): the item ends with its playlist")
            XCTAssertEqual(stop.live?.dropped ?? 0, 0, "\(clock): none passed over")
        }
    }

    /// A publisher that ends its stream (ffmpeg stopped: it writes `#EXT-X-ENDLIST`) while the
    /// render goes on: the frames after the last picture's time hold it, and show no stream.
    /// Counted in `live_offset_ms`, they made a play 3.5 s behind throughout report a p95 of
    /// 10.7 s.
    func testTheFramesAfterAStreamEndedDoNotCountInItsOffset() throws {
        try LiveServers.require("ffmpeg", "python3")
        let folder = servers.folder.file("ending")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let publisher = try servers.publishClockCoded(.ffmpeg, to: .hls(folder: folder))
        let url = try servers.httpServer(root: folder) + "/live.m3u8"
        try waitUntilPlayable(url, publisher: publisher)
        DispatchQueue.global().asyncAfter(deadline: .now() + 3) { publisher.stop() }
        let board = try board(url, clock: .realtime, seconds: 10)
        let (reading, stop, events) = try watch(board)
        let ended = try XCTUnwrap(events.of(.ended, story: "live").first, "the playlist ends the item: \(events.map(\.jsonLine))")
        XCTAssertLessThan(ended.t, 9, "well before the render's end, so that frames hold the last picture after it")
        let offset = try XCTUnwrap(stop.live?.offsetMs, "\(stop.jsonLine)")
        XCTAssertLessThan(offset.max - offset.p50, 1.5 * 1000, "the offset while pictures played: \(stop.jsonLine)")
        XCTAssertGreaterThan(Set(reading.codes.compactMap { $0?.number }).count, 60, reading.diagnosis)
    }
}
