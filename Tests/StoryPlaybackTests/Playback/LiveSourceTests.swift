import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// Every source kind and every fault against real servers on 127.0.0.1, started and stopped here.
final class LiveSourceTests: LiveServerTestCase {
    // MARK: - Helpers

    /// A small storyboard around items given as JSON text.
    func board(_ stories: String, duration: Double = 1.5, clock: String = "virtual", timeouts: String = #"{"open": 4, "read": 4, "retries": 2}"#,
               script: String = "", extra: String = "") throws -> Storyboard {
        try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": \(duration), "clock": "\(clock)",
         "timeouts": \(timeouts), "stories": [\(stories)], "script": [\(script)] \(extra)}
        """, folder: servers.folder.path)
    }

    func assertPlays(_ board: Storyboard, story: String = "s", file: StaticString = #filePath, line: UInt = #line) throws -> [TraceEvent] {
        let (_, events, _) = try render(board)
        XCTAssertEqual(events.of(.failed), [], "\(events.of(.failed).map { $0.error ?? "" })", file: file, line: line)
        let first = try XCTUnwrap(events.of(.firstFrame, story: story).first, "no first frame", file: file, line: line)
        XCTAssertNotNil(first.spans, "firstFrame carries the spans", file: file, line: line)
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [], file: file, line: line)
        return events
    }

    func assertFails(_ board: Storyboard, errorContains expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let (summary, events, _) = try render(board)
        let failed = events.of(.failed)
        XCTAssertEqual(failed.count, 1, "\(events.map(\.jsonLine))", file: file, line: line)
        XCTAssertTrue((failed.first?.error ?? "").localizedCaseInsensitiveContains(expected),
                      "error was: \(failed.first?.error ?? "none")", file: file, line: line)
        XCTAssertEqual(summary.frames, Int((board.duration! * board.canvas.fps).rounded()), "the render goes on", file: file, line: line)
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [], file: file, line: line)
    }

    /// A live HLS playlist that ffmpeg is still writing (sliding window), served over HTTP.
    func liveHLS() throws -> String {
        let folder = servers.folder.file("hls")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let writer = try servers.feed("beach.mp4", to: folder + "/live.m3u8", format: "hls",
                                      extra: ["-hls_time", "1", "-hls_list_size", "5", "-hls_flags", "delete_segments"])
        let playlist = folder + "/live.m3u8"
        let ready = LiveServers.waitUntil(20) {
            ((try? String(contentsOfFile: playlist, encoding: .utf8)) ?? "").components(separatedBy: ".ts").count > 2
        }
        XCTAssertTrue(ready, "the HLS writer produced no playlist: \(writer.output)")
        return try servers.httpServer(root: folder) + "/live.m3u8"
    }

    /// A hand-written playlist served over HTTP from a folder of its own; returns its URL.
    func servePlaylist(_ text: String) throws -> String {
        let folder = servers.folder.file("playlist-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: folder + "/index.m3u8", contents: Data(text.utf8))
        return try servers.httpServer(root: folder) + "/index.m3u8"
    }

    func rtmpStream(name: String = "story") throws -> (url: String, port: Int) {
        try LiveServers.require("nginx")
        let port = try servers.rtmpServer()
        let url = "rtmp://127.0.0.1:\(port)/live/\(name)"
        _ = try servers.feed("beach.mp4", to: url, format: "flv")
        let ready = LiveServers.waitUntil(20) { (try? MediaProbe.run(url, timeouts: Timeouts(open: 3, read: 3))) != nil }
        XCTAssertTrue(ready, "the RTMP stream never became playable")
        return (url, port)
    }

    // MARK: - Sources

    func testHLSLivePlaylistStillBeingWritten() throws {
        let url = try liveHLS()
        let events = try assertPlays(board(#"{"id": "s", "items": [{"uri": "\#(url)", "live": true}]}"#))
        XCTAssertEqual(events.of(.ended), [], "a live item plays on for its 10 s default, past this 1.5 s render")
        XCTAssertTrue(try MediaProbe.run(url).isLive, "probe says the sliding-window playlist is live")
    }

    func testHLSVOD() throws {
        let folder = servers.folder.file("vod")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let writer = try servers.start("ffmpeg", ["-v", "error", "-i", Fixture.sample("beach.mp4"), "-c", "copy", "-an", "-f", "hls",
                                                  "-hls_time", "1", "-hls_playlist_type", "vod", folder + "/vod.m3u8"], name: "vod")
        XCTAssertTrue(LiveServers.waitUntil(20) { !writer.isRunning })
        let url = try servers.httpServer(root: folder) + "/vod.m3u8"
        _ = try assertPlays(board(#"{"id": "s", "items": [{"uri": "\#(url)"}]}"#))
        let probe = try MediaProbe.run(url)
        XCTAssertFalse(probe.isLive)
        XCTAssertEqual(probe.duration ?? 0, 3, accuracy: 0.2)
    }

    func testRTMPPlayFromServer() throws {
        let stream = try rtmpStream()
        _ = try assertPlays(board(#"{"id": "s", "items": [{"uri": "\#(stream.url)", "live": true}]}"#))
    }

    func testSRTCallerFromListener() throws {
        let port = LiveServers.freePort()
        let listener = try servers.feed("beach.mp4", to: "srt://127.0.0.1:\(port)?mode=listener", format: "mpegts")
        XCTAssertTrue(LiveServers.waitUntil(10) { LiveServers.udpBound(port: port) }, "SRT listener: \(listener.output)")
        _ = try assertPlays(board(#"{"id": "s", "items": [{"uri": "srt://127.0.0.1:\#(port)?mode=caller", "live": true}]}"#))
    }

    func testProgressiveHTTPMP4AndFLV() throws {
        let folder = servers.folder.file("files")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixture.sample("city.mp4"), toPath: folder + "/city.mp4")
        let flv = try servers.start("ffmpeg", ["-v", "error", "-i", Fixture.sample("beach.mp4"), "-c", "copy", "-an", folder + "/beach.flv"], name: "flv")
        XCTAssertTrue(LiveServers.waitUntil(20) { !flv.isRunning })
        let base = try servers.httpServer(root: folder)
        let events = try assertPlays(board("""
        {"id": "s", "items": [{"uri": "\(base)/city.mp4"}]}, {"id": "flv", "items": [{"uri": "\(base)/beach.flv"}]}
        """, script: #"{"at": 0.5, "action": "tap", "x": 0.9}"#))
        XCTAssertEqual(events.of(.firstFrame, story: "flv").count, 1)
    }

    /// An HTTPS source must come from the server it names, as a feed page must: the same file
    /// that plays over HTTP fails over HTTPS with a self-signed certificate, saying why, and the
    /// render goes on.
    func testHTTPSSourceWithAnUntrustedCertificateFails() throws {
        let folder = servers.folder.file("tls-files")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixture.sample("city.mp4"), toPath: folder + "/city.mp4")
        _ = try assertPlays(board(#"{"id": "s", "items": [{"uri": "\#(try servers.httpServer(root: folder))/city.mp4"}]}"#))
        try assertFails(board(#"{"id": "s", "items": [{"uri": "\#(try servers.httpsServer(root: folder))/city.mp4"}]}"#),
                        errorContains: "certificate")
    }

    // MARK: - Faults

    func testConnectionRefused() throws {
        try assertFails(board(#"{"id": "s", "items": [{"uri": "http://127.0.0.1:\#(LiveServers.freePort())/live.m3u8", "live": true}]}"#),
                        errorContains: "refused")
    }

    func testServerThatAcceptsAndStalls() throws {
        let port = try servers.stallingServer()
        try assertFails(board(#"{"id": "s", "items": [{"uri": "http://127.0.0.1:\#(port)/live.m3u8", "live": true}]}"#,
                              timeouts: #"{"open": 1, "read": 1, "retries": 1}"#),
                        errorContains: "no answer within 1 s")
    }

    func testServerKilledMidStreamReconnectsThenFails() throws {
        let stream = try rtmpStream()
        let board = try board(#"{"id": "s", "items": [{"uri": "\#(stream.url)", "live": true}]}"#, duration: 4,
                              timeouts: #"{"open": 1, "read": 1, "retries": 2}"#)
        // Kill the server once the render is under way.
        let servers = self.servers!
        DispatchQueue.global().asyncAfter(deadline: .now() + 2.5) { servers.stopAll() }
        let (summary, events, _) = try render(board)
        XCTAssertEqual(events.of(.firstFrame).count, 1)
        XCTAssertEqual(events.of(.reconnect).map(\.attempt), [1, 2], "\(events.map(\.jsonLine))")
        XCTAssertEqual(events.of(.failed).count, 1, "fails after the last try")
        XCTAssertTrue(events.of(.failed)[0].error?.contains("live stream lost after 2 reconnects") ?? false)
        XCTAssertEqual(summary.frames, 40, "the render goes on")
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [])
    }

    func testPlaylistThatIs404() throws {
        let base = try servers.httpServer(root: servers.folder.path)
        try assertFails(board(#"{"id": "s", "items": [{"uri": "\#(base)/missing.m3u8", "live": true}]}"#), errorContains: "404")
    }

    func testPlaylistWhoseSegmentsAre404() throws {
        let url = try servePlaylist("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n"
                                    + "#EXTINF:1.0,\nseg0.ts\n#EXTINF:1.0,\nseg1.ts\n#EXT-X-ENDLIST\n")
        let (_, events, _) = try render(board(#"{"id": "s", "items": [{"uri": "\#(url)"}]}"#))
        XCTAssertEqual(events.of(.failed).count, 1, "\(events.map(\.jsonLine))")
        XCTAssertEqual(events.of(.firstFrame), [])
    }

    func testRTMPStreamNameThatDoesNotExist() throws {
        try LiveServers.require("nginx")
        let port = try servers.rtmpServer()
        try assertFails(board(#"{"id": "s", "items": [{"uri": "rtmp://127.0.0.1:\#(port)/live/nobody", "live": true}]}"#,
                              timeouts: #"{"open": 1, "read": 1, "retries": 0}"#),
                        errorContains: "no answer within 1 s")
    }

    // MARK: - Security and cancellation

    /// A playlist fetched over HTTP must never make FFmpeg read a local file.
    func testRemotePlaylistCannotReadLocalFiles() throws {
        let url = try servePlaylist("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\nfile:///etc/hostname\n#EXT-X-ENDLIST\n")
        let (_, events, _) = try render(board(#"{"id": "s", "items": [{"uri": "\#(url)"}]}"#))
        let failed = try XCTUnwrap(events.of(.failed).first, "\(events.map(\.jsonLine))")
        XCTAssertEqual(events.of(.firstFrame), [])
        let hostname = (try? String(contentsOfFile: "/etc/hostname", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "\u{0}"
        XCTAssertFalse(failed.error?.contains(hostname) ?? true, "nothing from the file reaches the trace")
    }

    func testStorySettingNarrowsProtocols() throws {
        let board = try board(#"{"id": "s", "items": [{"uri": "\#(Fixture.sample("beach.mp4"))"}]}"#, extra: #", "protocols": ["http", "https"]"#)
        let (_, events, _) = try render(board)
        XCTAssertTrue(events.of(.failed).first?.error?.contains("no allowed protocol") ?? false, "\(events.map(\.jsonLine))")
    }

    /// stop() on a player blocked in the network returns within 100 ms, and its FFmpeg objects
    /// are freed even so.
    func testStopWhileBlockedInTheNetworkIsPrompt() throws {
        let port = try servers.stallingServer()
        let baseline = FormatContext.alive.load(ordering: .relaxed)
        let story = Story(id: "s", items: [StoryItem(source: MediaSource(uri: "http://127.0.0.1:\(port)/live.m3u8", relativeTo: "/"), isLive: true)])
        let player = StoryPlaybackController(story: story, canvas: Canvas(width: 72, height: 128), playback: .realtime, trace: LifecycleTrace())
        player.play(item: 0, at: 0)
        XCTAssertTrue(LiveServers.waitUntil(5) { FormatContext.alive.load(ordering: .relaxed) > baseline }, "the player is opening")
        Thread.sleep(forTimeInterval: 0.3)
        let started = ContinuousClock.now
        player.stop(at: 1)
        let elapsed = ContinuousClock.now - started
        XCTAssertLessThan(elapsed, .milliseconds(100))
        XCTAssertTrue(LiveServers.waitUntil(2) { FormatContext.alive.load(ordering: .relaxed) == baseline }, "the demuxer was freed")
    }

    // MARK: - Realtime

    /// A realtime render of a live HLS story and an RTMP story: the blurred poster first, then
    /// video; the trace passes check; summary.json has first-frame times.
    func testRealtimeRenderShowsPosterThenVideo() throws {
        let hls = try liveHLS()
        let rtmp = try rtmpStream()
        try FileManager.default.copyItem(atPath: Fixture.sample("sunset.jpg"), toPath: servers.folder.file("poster.jpg"))
        let board = try board("""
        {"id": "hls", "poster": "poster.jpg", "items": [{"uri": "\(hls)", "live": true}]},
        {"id": "rtmp", "poster": "poster.jpg", "items": [{"uri": "\(rtmp.url)", "live": true}]}
        """, duration: 7, clock: "realtime", script: #"{"at": 2, "action": "swipe", "direction": "next"}"#)
        let (summary, events, folder) = try render(board)
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [])
        XCTAssertEqual(events.of(.failed), [])
        let hlsFirst = try XCTUnwrap(events.of(.firstFrame, story: "hls").first)
        XCTAssertGreaterThan(hlsFirst.t, 0, "the first frame of a live stream takes time")
        XCTAssertEqual(events.of(.firstFrame, story: "rtmp").count, 1)
        // Frame 0 is the loading picture: the blurred, darkened poster with the loading ring (the
        // progress segments along the top aside).
        let posters = PosterLibrary(canvas: board.canvas, look: board.loading, limits: DecodeLimits())
        posters.request([0], stories: board.stories)
        posters.waitForRequests()
        let expected = posters.picture(story: 0, item: 0, at: 0, ring: true)
        let first = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(folder.path, 0))
        var worst = 0
        for y in stride(from: 8, to: 128, by: 3) { for x in stride(from: 0, to: 72, by: 3) { worst = max(worst, first[x, y].distance(to: expected[x, y])) } }
        XCTAssertLessThanOrEqual(worst, 2, "frame 0 shows the loading picture")
        // Half a second after the first frame, video has replaced it.
        let later = Int((hlsFirst.t + 0.5) * 10)
        if FileManager.default.fileExists(atPath: StoryRenderer.framePath(folder.path, later)) {
            let video = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(folder.path, later))
            var differing = 0
            for y in stride(from: 8, to: 128, by: 3) { for x in stride(from: 0, to: 72, by: 3) where video[x, y].distance(to: expected[x, y]) > 20 { differing += 1 } }
            XCTAssertGreaterThan(differing, 100, "video has replaced the poster")
        }
        let json = try String(contentsOfFile: folder.file("summary.json"), encoding: .utf8)
        XCTAssertTrue(json.contains("\"first_frame\": {\"open_ms\": {\"count\": 2"), json)
        XCTAssertTrue(json.contains("\"clock\": \"realtime\""))
        XCTAssertEqual(summary.frames + summary.lateFrames.count, 70)
    }
}
