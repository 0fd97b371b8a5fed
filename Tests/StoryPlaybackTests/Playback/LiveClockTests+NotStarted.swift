import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

// MARK: - A broadcast that has not started

extension LiveClockTests {
    /// A live playlist with its head written and no segment yet (`#EXT-X-TARGETDURATION`, no
    /// `#EXTINF`, no `#EXT-X-ENDLIST`), as a publisher about to start leaves it.
    func writeEmptyLivePlaylist(in folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n".utf8)
            .write(to: URL(fileURLWithPath: folder + "/live.m3u8"))
    }

    /// The viewer opens the broadcast a moment before its publisher lists a first segment: it
    /// waits for one, as a phone's player does, and plays the pictures when they come. Before,
    /// FFmpeg took the playlist for a stream without video that had ended, and the item failed
    /// after its reconnects (two, here, within a second), saying the stream was lost.
    func testABroadcastThatStartsAfterTheViewerOpensItPlays() throws {
        try LiveServers.require("ffmpeg", "python3")
        let folder = servers.folder.file("starting")
        try writeEmptyLivePlaylist(in: folder)
        let url = try servers.httpServer(root: folder) + "/live.m3u8"
        // Started a second from now, in its own shell: the viewer opens the playlist first.
        _ = try servers.publishClockCoded(.ffmpeg, to: .hls(folder: folder), after: 1)
        let board = try board(url, clock: .realtime, seconds: 8, extra: #", "timeouts": {"open": 6, "read": 3, "retries": 2}"#)
        let (reading, _, events) = try watch(board)
        XCTAssertEqual(events.of(.reconnect).map(\.jsonLine), [], "waiting for the first segment is not a reconnect")
        let shown = Set(reading.codes.compactMap { $0?.number })
        XCTAssertGreaterThan(shown.count, 30, "the broadcast's pictures reach the screen: \(reading.diagnosis)")
    }

    /// A broadcast that lists no segment within the open timeout fails once, saying so, after
    /// about that timeout: not "lost after reconnects", and not in under two seconds.
    func testABroadcastThatNeverStartsFailsAfterTheOpenTimeout() throws {
        try LiveServers.require("python3")
        let folder = servers.folder.file("never")
        try writeEmptyLivePlaylist(in: folder)
        let url = try servers.httpServer(root: folder) + "/live.m3u8"
        let board = try board(url, clock: .virtual, seconds: 4, extra: #", "timeouts": {"open": 2.5, "read": 3, "retries": 2}"#)
        let started = Date()
        let (_, events, _) = try render(board, threads: 1)
        let waited = Date().timeIntervalSince(started)
        let failed = events.of(.failed)
        XCTAssertEqual(failed.count, 1, "\(events.map(\.jsonLine))")
        XCTAssertEqual(failed.first?.error, "no segment listed within 2.5 s in \(url): the broadcast has not started")
        XCTAssertEqual(events.of(.reconnect).map(\.jsonLine), [])
        XCTAssertGreaterThanOrEqual(waited, 2.0, "it waited for the broadcast about as long as the open timeout")
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [])
    }
}
