import Compositor
import Foundation
@testable import StoryLive
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
@testable import StoryEncode
import StoryPlayerTestSupport
import StoryBase
import XCTest

/// Live pictures on their stream's clock, checked on what reaches the frames: clock-coded
/// publishers of both families (ffmpeg and GStreamer, with sound), and the code read back from
/// every rendered frame, so the test counts the distinct pictures a viewer saw and how old they
/// were, not the events the players traced.
final class LiveClockTests: LiveServerTestCase {
    /// At least this many distinct pictures a second of a 30 fps source. The virtual clock waits
    /// for each picture, so it must show nearly all (the count starts at the first coded frame).
    /// The realtime clock shares two cores with the publishers and the test: its bound is looser,
    /// far above the 1.3-1.5 a second this caught, and looser again under a sanitizer, which
    /// slows every frame. The 29-a-second target is measured by `bench/live-latency.sh`.
    static func smooth(_ clock: PlaybackClock) -> Double {
        clock == .virtual ? 28.5 : underSanitizer ? 12 : 25
    }

    /// The same for a stock WebRTC stack sending on the test's own two cores (GStreamer's
    /// webrtcbin with x264enc, aiortc with its software encoder): what those tests check is
    /// that the stacks connect and play smoothly, and such a sender drops pictures when the
    /// cores are busy, whatever the player does. Two fresh-clone CI runs measured webrtcbin's
    /// active role at 28.25 and 27.25 a second, with no hitch and holds of at most 2 frames;
    /// the failures these bounds are for were 1.3-1.5. Its rate is `bench/live-latency.sh`'s.
    static func smoothFromStockSender(_ clock: PlaybackClock) -> Double {
        min(smooth(clock), 25)
    }

    /// The hitches a smooth play may show: one, the controller's jump to the edge when it
    /// starts too far behind (`LivePlayhead.startWindow`), which holds the last picture while
    /// the decoder passes over those in between. A late segment passed over shows one a segment
    /// (5-6 in 6 s before it was waited for).
    static let startJump = 1

    /// How much slower a sanitizer build may be before the latency bounds mean nothing.
    static var slack: Double { underSanitizer ? 4 : 1 }

    static var underSanitizer: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
    }

    func board(_ url: String, clock: PlaybackClock, seconds: Double = 4, saysLive: Bool = false, canvas: (width: Int, height: Int) = (360, 640),
               extra: String = "") throws -> Storyboard {
        try Storyboard.parse("""
        {"canvas": {"width": \(canvas.width), "height": \(canvas.height), "fps": 30}, "duration": \(seconds), "clock": "\(clock.rawValue)",
         "stories": [{"id": "live", "items": [{"uri": "\(url)", "duration": \(seconds)\(saysLive ? #", "live": true"# : "")}]}] \(extra)}
        """, folder: servers.folder.path)
    }

    /// Renders and reads the frames back; the trace must pass `check`.
    func watch(_ board: Storyboard, file: StaticString = #filePath, line: UInt = #line)
        throws -> (reading: ClockCode.Reading, stop: TraceEvent, events: [TraceEvent]) {
        let (_, events, folder) = try render(board, threads: 1)
        XCTAssertEqual(events.of(.failed), [], "\(events.of(.failed).map { $0.error ?? "" })", file: file, line: line)
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [], file: file, line: line)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("summary.json")))) as? [String: Any])
        let stop = try XCTUnwrap(events.of(.stop).first, file: file, line: line)
        return (try ClockCode.read(folder: folder.path, summary: summary), stop, events)
    }

    /// The MP4's sound, mono at 8 kHz, as floats (ffmpeg decodes it).
    func monoSamples(of clip: String, into raw: String) throws -> [Float] {
        let decoded = try servers.start("ffmpeg", ["-v", "error", "-i", clip, "-vn", "-ac", "1", "-ar", "8000", "-f", "f32le", raw],
                                        name: "decode-\(UUID().uuidString.prefix(8))")
        decoded.process.waitUntilExit()
        XCTAssertEqual(decoded.process.terminationStatus, 0, decoded.output)
        return try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Runs a publisher's shell `command` (a pipeline: stopped by its process group) and waits
    /// until `url` plays: nginx-rtmp accepts a play before the publisher is there.
    func publishToRTMP(_ command: String, url: String, name: String) throws -> ServerProcess {
        let publisher = try servers.start("bash", ["-c", "trap 'trap - TERM INT; kill -- -$$' TERM INT; \(command) & wait"], name: name)
        try waitUntilPlayable(url, publisher: publisher)
        return publisher
    }

    func waitUntilPlayable(_ url: String, publisher: ServerProcess) throws {
        guard LiveServers.waitUntil(20, { (try? MediaProbe.run(url, timeouts: Timeouts(open: 1.5, read: 1.5))) != nil }) else {
            publisher.stop()
            throw LiveServers.unavailable("\(url) never became playable: \(publisher.output)")
        }
    }

    func hlsPlaylist(from publisher: ClockCodedPublisher) throws -> String {
        let folder = servers.folder.file("hls-\(publisher.rawValue)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let process = try servers.publishClockCoded(publisher, to: .hls(folder: folder))
        // Three segments listed: the demuxer starts three from the end.
        let ready = LiveServers.waitUntil(25) {
            ((try? String(contentsOfFile: folder + "/live.m3u8", encoding: .utf8)) ?? "").components(separatedBy: ".ts").count > 3
        }
        guard ready else { throw LiveServers.unavailable("\(publisher) wrote no HLS playlist: \(process.output)") }
        return try servers.httpServer(root: folder) + "/live.m3u8"
    }

    /// A live DASH manifest from `publisher`, served over HTTP, once more than three segments
    /// whose names start with one of `segmentPrefixes` are written (video by default).
    func dashManifest(from publisher: ClockCodedPublisher, folder name: String,
                      segmentPrefixes: [String] = ["video_0_", "chunk-stream0"]) throws -> String {
        let folder = servers.folder.file(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let process = try servers.publishClockCoded(publisher, to: .dash(folder: folder))
        let ready = LiveServers.waitUntil(25) {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
                .filter { name in segmentPrefixes.contains { name.hasPrefix($0) } }.count > 3
                && FileManager.default.fileExists(atPath: folder + "/live.mpd")
        }
        guard ready else { throw LiveServers.unavailable("\(publisher) wrote no DASH manifest: \(process.output)") }
        return try servers.httpServer(root: folder) + "/live.mpd"
    }

    // MARK: - HLS: every picture of a segment's burst, on both clocks

    func assertHLSIsSmooth(_ publisher: ClockCodedPublisher) throws {
        let url = try hlsPlaylist(from: publisher)
        for clock in PlaybackClock.allCases {
            let (reading, stop, events) = try watch(board(url, clock: clock))
            XCTAssertGreaterThanOrEqual(reading.distinctPerSecond, LiveClockTests.smooth(clock),
                                        "\(publisher) HLS, \(clock) clock: distinct pictures a second (it was 1.3-1.5 realtime, ~4 virtual): \(reading.diagnosis)")
            XCTAssertLessThanOrEqual(reading.hitches, LiveClockTests.startJump,
                                     "\(publisher) HLS, \(clock) clock: a late segment is waited for: \(reading.diagnosis)")
            let live = try XCTUnwrap(stop.live, "a live player's stop has its live figures")
            XCTAssertNotNil(live.offsetMs)
            XCTAssertEqual(live.offsetFrom, "arrival", "ffmpeg and hlssink2 write no program dates by default")
            if !LiveClockTests.underSanitizer { XCTAssertEqual(live.rebuffers, 0, "\(publisher) \(clock)") }
            if clock == .realtime {
                // Three 1 s segments behind, read from the frames themselves: within a second of
                // the 3 s target (the publisher's own delay adds to what the playlist shows).
                let latency = try XCTUnwrap(reading.latencyP50)
                XCTAssertGreaterThan(latency, 2000, "\(publisher) HLS plays behind the edge, as the target says")
                XCTAssertLessThan(latency, 4800 * LiveClockTests.slack, "\(publisher) HLS latency read from the frames")
                // What to look at when it fails (it did twice in CI, at 3825 and 4269 ms): the
                // offset each second and how old the pictures on screen were, read from them.
                XCTAssertEqual(live.offsetMs!.p50, 3000, accuracy: 500 * LiveClockTests.slack,
                               "the controller holds the measured offset at the target; offsets "
                               + "\(live.series.map { "\($0.t): \($0.ms)" }), latency from the frames \(latency) ms, "
                               + "events \(events.map(\.event.rawValue))")
            }
        }
    }

    func testHLSFromFFmpegShowsEveryPictureOnBothClocks() throws {
        try assertHLSIsSmooth(.ffmpeg)
    }

    func testHLSFromGStreamerShowsEveryPictureOnBothClocks() throws {
        try assertHLSIsSmooth(.gstreamer)
    }

    /// The race that failed CI twice: a segment listed between our read of the playlist and
    /// the demuxer's own. Forced here by waiting for the next segment between the two: the
    /// demuxer starts a segment later than our read predicts, and the segment it opened first
    /// says so, so the edge is measured from where it really started.
    func testTheEdgeIsMeasuredFromTheSegmentTheDemuxerStartedAt() throws {
        let url = try hlsPlaylist(from: .ffmpeg)
        let gate = InterruptGate()
        let ours = try XCTUnwrap(PlaylistWatch.fetchMedia(url, gate: gate, timeout: 5)).playlist
        let predicted = try XCTUnwrap(ours.startSequence())
        let lastListed = try XCTUnwrap(ours.segments.last?.sequence)
        XCTAssertTrue(LiveServers.waitUntil(5) {
            (PlaylistWatch.fetchMedia(url, gate: gate, timeout: 5)?.playlist.segments.last?.sequence ?? 0) > lastListed
        }, "the publisher lists a new segment")
        let source = MediaSource(uri: url, relativeTo: "/")
        let decoder = try MediaDecoder(source: source, limits: DecodeLimits(), gate: gate, isLive: true,
                                       live: LiveSources.reading(source, isLive: true))
        defer { decoder.close() }
        let opened = decoder.openedURLs
        XCTAssertTrue(opened.first?.hasSuffix("live.m3u8") == true, "the playlist is opened first: \(opened)")
        let newer = try XCTUnwrap(PlaylistWatch.fetchMedia(url, gate: gate, timeout: 5)).playlist
        let started = try XCTUnwrap(newer.sequence(openedFirstAmong: opened), "a segment among \(opened)")
        XCTAssertGreaterThan(started, predicted, "the demuxer read the playlist after the new segment came")
        XCTAssertEqual(ours.sequence(openedFirstAmong: opened).map { $0 > predicted } ?? true, true,
                       "our older read, where it lists the segment, agrees")
    }

    /// A target of 2 s on 1 s segments: the player starts two segments behind, not three.
    func testHLSLatencyTargetIsHeld() throws {
        let url = try hlsPlaylist(from: .ffmpeg)
        let (reading, stop, _) = try watch(board(url, clock: .realtime, extra: #", "latency": {"target": 2}"#))
        XCTAssertGreaterThanOrEqual(reading.distinctPerSecond, LiveClockTests.smooth(.realtime), reading.diagnosis)
        XCTAssertLessThanOrEqual(reading.hitches, LiveClockTests.startJump, reading.diagnosis)
        let latency = try XCTUnwrap(reading.latencyP50)
        XCTAssertLessThan(latency, 2800 * LiveClockTests.slack, "p50 latency read from the frames with a 2 s target")
        XCTAssertEqual(try XCTUnwrap(stop.live?.offsetMs).p50, 2000, accuracy: 400 * LiveClockTests.slack)
    }

    // MARK: - DASH: every picture too

    /// A live DASH manifest (`.mpd`, live by its form) from ffmpeg's dash muxer (a segment
    /// timeline, `suggestedPresentationDelay` 1 s) and GStreamer's dashsink (numbered MPEG-TS
    /// segments, no suggestion: 3 s). Read by this program's own segment reader, each plays at
    /// its target: FFmpeg's DASH demuxer started ffmpeg's a window behind and ran back to it at
    /// every manifest refresh (26.8 distinct pictures a second, 5.8 s behind a 1 s target).
    /// The offset measured from the manifest must agree with how old the pictures on screen
    /// were, read from the frames (the publisher's own delay, up to a segment, adds to them).
    func testDASHFromBothFamiliesShowsEveryPicture() throws {
        for publisher in ClockCodedPublisher.allCases {
            let url = try dashManifest(from: publisher, folder: "dash-\(publisher.rawValue)")
            let target: Double = publisher == .ffmpeg ? 1 : 3
            for clock in PlaybackClock.allCases {
                let (reading, stop, _) = try watch(board(url, clock: clock, seconds: clock == .realtime ? 6 : 4))
                XCTAssertGreaterThanOrEqual(reading.distinctPerSecond, LiveClockTests.smooth(clock), "\(publisher) DASH, \(clock) clock: \(reading.diagnosis)")
                // Segments come in bursts: one late is waited for, then every picture shown.
                // With ffmpeg's 1 s target a segment came 60-90 ms late each second, and the
                // realtime clock ran on and passed over the picture or two after the hold, 5-6
                // times in 6 s. (The virtual clock waits for every picture: held to it too.)
                XCTAssertLessThanOrEqual(reading.hitches, LiveClockTests.startJump, "\(publisher) DASH, \(clock) clock: \(reading.diagnosis)")
                let live = try XCTUnwrap(stop.live, "\(publisher) DASH \(clock): a live player's stop")
                guard clock == .realtime else { continue }
                let seen = try XCTUnwrap(reading.latencyP50)
                let measured = try XCTUnwrap(live.offsetMs?.p50)
                XCTAssertEqual(measured, target * 1000, accuracy: 500 * LiveClockTests.slack + 500 * Double(live.rebuffers),
                               "\(publisher) DASH: the controller holds the offset at the target (or the target a rebuffer raised)")
                XCTAssertEqual(measured, seen, accuracy: 1500 * LiveClockTests.slack,
                               "\(publisher) DASH: the offset from the manifest (\(measured) ms) against the pictures' age (\(seen) ms)")
                XCTAssertLessThan(seen, (target + 1.5) * 1000 * LiveClockTests.slack, "\(publisher) DASH latency read from the frames")
            }
        }
    }

    /// DASH sends its sound in segments of its own: read on a thread of its own (`DASHSound`),
    /// it reaches the MP4 beside the pictures (the publisher's 440 Hz tone, not silence).
    func testDASHSoundReachesTheClip() throws {
        let url = try dashManifest(from: .ffmpeg, folder: "dash-sound", segmentPrefixes: ["chunk-stream1"])
        let output = ScratchFolder()
        try render(board(url, clock: .realtime, seconds: 4), into: output, threads: 1) { options in
            options.clip = ClipOptions(path: output.file("clip.mp4"))
        }
        // The last two seconds: the MP4 takes a live story's sound half a second late.
        let outcome = try ExternalProgram.outcome("/usr/bin/ffmpeg", ["-v", "info", "-ss", "2", "-i", output.file("clip.mp4"),
                                                                      "-af", "volumedetect", "-vn", "-f", "null", "-"])
        let report = String(decoding: outcome.stderr, as: UTF8.self)
        let mean = try XCTUnwrap(report.firstMatch(of: /mean_volume: (-?[\d.]+) dB/).flatMap { Double($0.1) }, report)
        XCTAssertGreaterThan(mean, -30, "the publisher's tone (a silent clip measures -91 dB)")
    }

    // MARK: - RTMP: smooth and near the edge

    func testRTMPFromBothFamiliesIsSmoothAndNearTheEdge() throws {
        try LiveServers.require("nginx")
        let port = try servers.rtmpServer()
        for publisher in ClockCodedPublisher.allCases {
            let url = "rtmp://127.0.0.1:\(port)/live/\(publisher.rawValue)"
            let process = try servers.publishClockCoded(publisher, to: .rtmp(url: url))
            let ready = LiveServers.waitUntil(20) { (try? MediaProbe.run(url, timeouts: Timeouts(open: 1.5, read: 1.5))) != nil }
            guard ready else { throw LiveServers.unavailable("\(publisher) RTMP never became playable: \(process.output)") }
            // No "live": true: an rtmp:// URL is live by its protocol.
            for clock in PlaybackClock.allCases {
                let (reading, stop, _) = try watch(board(url, clock: clock))
                XCTAssertGreaterThanOrEqual(reading.distinctPerSecond, LiveClockTests.smooth(clock), "\(publisher) RTMP, \(clock) clock: \(reading.diagnosis)")
                XCTAssertNotNil(stop.live?.offsetMs, "\(publisher) RTMP \(clock)")
                if clock == .realtime {
                    let latency = try XCTUnwrap(reading.latencyP50)
                    XCTAssertLessThan(latency, 400 * LiveClockTests.slack, "\(publisher) RTMP latency read from the frames (target 0.1 s)")
                }
            }
        }
    }

    /// A publisher that stalls for 2 s, then sends what it held back in one burst: one
    /// rebuffer, the target raised by 0.5 s, and once the player has caught up its offset holds
    /// within 0.25 s of the raised target, every picture shown again.
    func testAPublisherThatStallsOnceIsCaughtUpWith() throws {
        try LiveServers.require("nginx")
        let port = try servers.rtmpServer()
        let url = "rtmp://127.0.0.1:\(port)/live/stall"
        let publisher = try servers.publishClockCoded(.ffmpeg, to: .rtmp(url: url))
        guard LiveServers.waitUntil(20, { (try? MediaProbe.run(url, timeouts: Timeouts(open: 1.5, read: 1.5))) != nil }) else {
            throw LiveServers.unavailable("RTMP never became playable: \(publisher.output)")
        }
        // The whole group (generator and encoder) stops 4 s into the render, for 2 s.
        let group = publisher.process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 4.5) {
            kill(-group, SIGSTOP)
            DispatchQueue.global().asyncAfter(deadline: .now() + 2) { kill(-group, SIGCONT) }
        }
        let (reading, stop, _) = try watch(board(url, clock: .realtime, seconds: 14))
        let live = try XCTUnwrap(stop.live)
        if LiveClockTests.underSanitizer {
            XCTAssertGreaterThanOrEqual(live.rebuffers, 1, "\(stop.jsonLine)")
        } else {
            XCTAssertEqual(live.rebuffers, 1, "\(stop.jsonLine)")
        }
        let settled = live.series.filter { $0.t >= 10 }
        XCTAssertFalse(settled.isEmpty)
        for point in settled {
            if LiveClockTests.underSanitizer {
                // Slowed frames may count as more rebuffers, each raising the target: caught up is enough.
                XCTAssertLessThan(point.ms, 3000, "offset at \(point.t) s: \(live.series)")
            } else {
                XCTAssertEqual(point.ms, 600, accuracy: 250, "offset at \(point.t) s against the raised 0.6 s target: \(live.series)")
            }
        }
        let lastSeconds = reading.suffix(90)
        XCTAssertGreaterThanOrEqual(lastSeconds.distinctPerSecond, LiveClockTests.smooth(.realtime),
                                    "pictures flow again after the stall: \(lastSeconds.diagnosis)")
    }

    // MARK: - SRT and MPEG-TS over HTTP

    /// ffmpeg's SRT listener and MPEG-TS over HTTP each serve one viewer, so each render gets a
    /// publisher of its own.
    func testSRTAndHTTPTSAreSmoothAndNearTheEdge() throws {
        for kind in ["srt", "http-ts"] {
            for clock in PlaybackClock.allCases {
                let port = LiveServers.freePort()
                let output: ClockCodedPublisher.Output = kind == "srt" ? .srtListener(port: port) : .httpTS(port: port)
                let process = try servers.publishClockCoded(.ffmpeg, to: output)
                let listening = LiveServers.waitUntil(15) {
                    kind == "srt" ? LiveServers.udpBound(port: port) : LiveServers.tcpListening(port: port)
                }
                guard listening else { throw LiveServers.unavailable("\(kind) publisher did not listen: \(process.output)") }
                let url = kind == "srt" ? "srt://127.0.0.1:\(port)?mode=caller" : "http://127.0.0.1:\(port)/live.ts"
                // MPEG-TS over HTTP says nothing of being live: the storyboard says so.
                let (reading, stop, _) = try watch(board(url, clock: clock, saysLive: kind == "http-ts"))
                XCTAssertGreaterThanOrEqual(reading.distinctPerSecond, LiveClockTests.smooth(clock), "\(kind), \(clock) clock: \(reading.diagnosis)")
                XCTAssertNotNil(stop.live?.offsetMs, "\(kind) \(clock)")
                if clock == .realtime {
                    XCTAssertLessThan(try XCTUnwrap(reading.latencyP50), 600 * LiveClockTests.slack, "\(kind) latency read from the frames (target 0.1 s)")
                }
                process.stop()
            }
        }
    }

    /// H.264 over SRT from GStreamer as it publishes by default (no SPS or PPS for a viewer
    /// who joins later): the item fails at the open timeout, saying why, and `probe` answers
    /// within that timeout instead of hanging.
    func testVideoThatNeverDecodesFailsAtTheOpenTimeout() throws {
        let port = LiveServers.freePort()
        let process = try servers.publishClockCoded(.gstreamer, to: .srtListener(port: port))
        guard LiveServers.waitUntil(15, { LiveServers.udpBound(port: port) }) else {
            throw LiveServers.unavailable("GStreamer's SRT listener did not start: \(process.output)")
        }
        let url = "srt://127.0.0.1:\(port)?mode=caller"
        let started = ContinuousClock.now
        XCTAssertThrowsError(try MediaProbe.run(url, timeouts: Timeouts(open: 3, read: 3))) { error in
            XCTAssertTrue("\(error)".contains("missing parameter sets"), "\(error)")
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "probe answers within its open timeout")
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 6, "timeouts": {"open": 3, "read": 3},
         "stories": [{"id": "live", "items": [{"uri": "\(url)", "duration": 6}]}]}
        """)
        let (_, events, _) = try render(board)
        let failed = try XCTUnwrap(events.of(.failed).first, "\(events.map(\.jsonLine))")
        XCTAssertTrue(failed.error?.contains("no decodable picture: missing parameter sets") == true, failed.error ?? "")
        XCTAssertTrue(failed.error?.contains("in the 3 s since opening") == true, failed.error ?? "")
    }

    // MARK: - The end of a playlist, and timestamps that jump

    /// A publisher that finishes writes `#EXT-X-ENDLIST`: the item ends there, without a
    /// reconnect and without waiting for its 10 s.
    func testEndlistEndsTheItem() throws {
        let folder = servers.folder.file("ending")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let writer = try servers.start("ffmpeg", ["-v", "error", "-re", "-i", Fixture.sample("beach.mp4"), "-t", "4", "-c", "copy", "-an",
                                                  "-f", "hls", "-hls_time", "1", "-hls_list_size", "0", folder + "/live.m3u8"], name: "ending")
        XCTAssertTrue(LiveServers.waitUntil(20) {
            ((try? String(contentsOfFile: folder + "/live.m3u8", encoding: .utf8)) ?? "").components(separatedBy: ".ts").count > 2
        }, writer.output)
        let url = try servers.httpServer(root: folder) + "/live.m3u8"
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "timeouts": {"open": 4, "read": 4, "retries": 2},
         "stories": [{"id": "live", "items": [{"uri": "\(url)"}]}, {"id": "after", "items": [{"uri": "odd.png", "duration": 0.5}]}]}
        """, folder: Fixture.path(""))
        let (_, events, _) = try render(board)
        XCTAssertEqual(events.of(.reconnect), [], "an ended playlist is not a stall")
        XCTAssertEqual(events.of(.failed), [])
        let ended = try XCTUnwrap(events.of(.ended, story: "live").first, "the item ends with its playlist")
        XCTAssertLessThan(ended.t, 9, "it ends with the data, not at the 10 s default")
        XCTAssertFalse(events.of(.play, story: "after").isEmpty, "the viewer moves on")
    }

    /// Segments whose timestamps jump (a second encode 60 s later, as a restarted publisher
    /// writes): a `discontinuity` event, and the pictures go on.
    func testTimestampJumpIsADiscontinuityAndPlaybackGoesOn() throws {
        let folder = servers.folder.file("jump")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, offset) in [("a", "0"), ("b", "60")] {
            let encode = try servers.start("ffmpeg", ["-v", "error", "-i", Fixture.sample("beach.mp4"), "-t", "2", "-c", "copy", "-an",
                                                      "-output_ts_offset", offset, "-f", "hls", "-hls_time", "1",
                                                      "-hls_segment_filename", folder + "/\(name)%d.ts", folder + "/\(name).m3u8"], name: "jump-\(name)")
            XCTAssertTrue(LiveServers.waitUntil(20) { !encode.isRunning }, encode.output)
        }
        // Live (no #EXT-X-ENDLIST): the demuxer starts at the third segment from the end, a1.
        let playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n"
            + ["a0", "a1", "b0", "b1"].map { "#EXTINF:1.0,\n\($0).ts\n" }.joined()
        FileManager.default.createFile(atPath: folder + "/live.m3u8", contents: Data(playlist.utf8))
        let url = try servers.httpServer(root: folder) + "/live.m3u8"
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 30}, "duration": 2.5, "timeouts": {"open": 4, "read": 4, "retries": 0},
         "stories": [{"id": "live", "items": [{"uri": "\(url)", "duration": 2.5}]}]}
        """, folder: servers.folder.path)
        let (_, events, _) = try render(board)
        let jump = try XCTUnwrap(events.of(.discontinuity).first, "\(events.map(\.jsonLine))")
        let times = (jump.detail ?? "").split(separator: " ").compactMap { Double($0) }
        XCTAssertEqual(times.count, 2, "it names where the timestamps jumped from and to: \(jump.detail ?? "")")
        XCTAssertEqual((times.last ?? 0) - (times.first ?? 0), 58, accuracy: 1.5, "the second encode's 60 s offset, less a segment")
        let stop = try XCTUnwrap(events.of(.stop).first)
        XCTAssertGreaterThan(stop.pictures ?? 0, 60, "pictures after the jump are shown too, each in its turn")
    }

    // MARK: - Preloads never hold the render

    /// A dead URL among the next stories (a server that accepts and never answers) delays
    /// neither the first frame nor the end of the render, on either clock: its probe is given up.
    func testADeadURLInThePreloadWindowHoldsNothing() throws {
        let port = try servers.stallingServer()
        for clock in PlaybackClock.allCases {
            let board = try Storyboard.parse("""
            {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 1, "clock": "\(clock.rawValue)",
             "timeouts": {"open": 6, "read": 6},
             "stories": [{"id": "here", "items": [{"uri": "\(Fixture.sample("beach.mp4"))"}]},
                         {"id": "dead", "items": [{"uri": "http://127.0.0.1:\(port)/live.m3u8"}]}]}
            """)
            let started = ContinuousClock.now
            let (_, events, _) = try render(board)
            let elapsed = ContinuousClock.now - started
            XCTAssertLessThan(try XCTUnwrap(events.first).wall, 1.2, "\(clock): the first event waited for the dead probe")
            XCTAssertLessThan(elapsed, .seconds(4), "\(clock): the render's end waited out the 6 s open timeout")
            let preload = try XCTUnwrap(events.of(.preload, story: "dead").first)
            XCTAssertFalse(preload.loaded?.contains("probe") ?? true, "the dead source was not probed")
        }
    }

    // MARK: - Sound in the MP4

    /// A live RTMP story's sound reaches the MP4, on both clocks: the publisher's 440 Hz tone,
    /// without gaps once the pictures come, at the pitch the clock's speed gives it (0.97-1.03).
    /// Before, a live story added silence.
    func testLiveSoundReachesTheMP4AtThePicturesSpeed() throws {
        try LiveServers.require("nginx")
        let port = try servers.rtmpServer()
        let url = "rtmp://127.0.0.1:\(port)/live/sound"
        let process = try servers.publishClockCoded(.ffmpeg, to: .rtmp(url: url))
        let ready = LiveServers.waitUntil(20) { (try? MediaProbe.run(url, timeouts: Timeouts(open: 1.5, read: 1.5))) != nil }
        guard ready else { throw LiveServers.unavailable("RTMP never became playable: \(process.output)") }
        for clock in PlaybackClock.allCases {
            try assertLiveToneReachesTheMP4(url, clock: clock, what: "RTMP")
        }
    }

    /// The same over live HLS from ffmpeg. Its sound was silent in the MP4: an HLS segment is
    /// analysed for 0.1 s, too short to learn the sound's rate, so no resampler could be set up;
    /// and once it could, only the first AAC frame of each PES packet was heard (25 ms every
    /// 0.3 s), the others coming without a timestamp. (GStreamer's hlssink2 times every frame:
    /// its HLS was heard before, and is not rendered again here.)
    func testLiveHLSSoundReachesTheMP4() throws {
        let ffmpeg = try hlsPlaylist(from: .ffmpeg)
        for clock in PlaybackClock.allCases {
            try assertLiveToneReachesTheMP4(ffmpeg, clock: clock, what: "ffmpeg HLS")
        }
    }

    /// Renders `url` for 5 s with an MP4 and reads the publisher's tone back from it: no 20 ms
    /// window of silence in a tenth of them, from a second after the first picture to 4.4 s (the
    /// last half second is read as the render ends, when the stream is already closed), at
    /// 440 Hz within the live clock's speed range (0.97-1.03).
    func assertLiveToneReachesTheMP4(_ url: String, clock: PlaybackClock, what: String,
                                     file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = ScratchFolder()
        let (_, events, _) = try render(board(url, clock: clock, seconds: 5), into: folder, threads: 1) {
            $0.clip = ClipOptions(path: folder.file("clip.mp4"))
        }
        XCTAssertEqual(events.of(.failed).map { $0.error ?? "" }, [], "\(what), \(clock)", file: file, line: line)
        let first = try XCTUnwrap(events.of(.firstFrame).first?.t, "\(what), \(clock): a picture was shown", file: file, line: line)
        guard first < 2.4 else {
            return XCTFail("\(what), \(clock): the first picture came at \(first) s, too late to hear 1 s of sound after it", file: file, line: line)
        }
        let audio = try ItemAudio(source: MediaSource(uri: folder.file("clip.mp4"), relativeTo: "/"), limits: DecodeLimits())
        defer { audio.close() }
        let start = first + 1
        let samples = audio.samples(from: start, count: Int((4.4 - start) * Tone.rate))
        let windows = stride(from: 0, to: samples.count - 1920, by: 1920).map { i in
            (i..<(i + 1920)).reduce(Float(0)) { max($0, abs(samples[$1])) }
        }
        let silent = windows.filter { $0 < 0.01 }.count
        XCTAssertLessThanOrEqual(silent, windows.count / 10, "\(what), \(clock): 20 ms windows of silence in the live tone: \(silent) of \(windows.count)",
                                 file: file, line: line)
        let frequency = Tone.frequency(samples)
        XCTAssertGreaterThan(frequency, 440 * 0.97 - 2, "\(what), \(clock): the tone's pitch", file: file, line: line)
        XCTAssertLessThan(frequency, 440 * 1.03 + 2, "\(what), \(clock): the tone's pitch", file: file, line: line)
    }

    // MARK: - Realtime frames have no holes

    /// A realtime render that cannot keep up: every frame file exists (a late one repeats the
    /// frame before it), and the late ones are still listed.
    func testLateRealtimeFramesAreWrittenAsCopies() throws {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 1080, "height": 1920, "fps": 120}, "duration": 1, "clock": "realtime",
         "stories": [{"id": "a", "items": [{"uri": "\(Fixture.sample("beach.mp4"))"}]}]}
        """)
        let (summary, _, folder) = try render(board, threads: 1)
        XCTAssertFalse(summary.lateFrames.isEmpty, "1080x1920 at 120 fps on this machine falls behind")
        for n in 0..<120 {
            XCTAssertTrue(FileManager.default.fileExists(atPath: StoryRenderer.framePath(folder.path, n)), "frame \(n) is missing")
        }
        let late = try XCTUnwrap(summary.lateFrames.first { $0 > 0 })
        XCTAssertEqual(try AtomicFile.read(StoryRenderer.framePath(folder.path, late)),
                       try AtomicFile.read(StoryRenderer.framePath(folder.path, late - 1)), "a late frame repeats the one before it")
    }
}
