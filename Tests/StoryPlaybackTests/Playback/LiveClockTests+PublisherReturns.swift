@testable import Compositor
import Foundation
@testable import StoryEncode
import Synchronization
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

// MARK: - A publisher that drops and comes back

extension LiveClockTests {
    /// The families a drop-and-return test publishes with: `usual` alone, both when
    /// `LIVE_STORIES_EVERY_FAMILY=1`. Each test takes about 11 s a family, all of it real time,
    /// so `make test` runs the item's with ffmpeg and the room's with GStreamer: each family
    /// drops once and each consumer path (item, participant) reconnects once.
    static func droppingFamilies(usual: ClockCodedPublisher) -> [ClockCodedPublisher] {
        ProcessInfo.processInfo.environment["LIVE_STORIES_EVERY_FAMILY"] == "1" ? ClockCodedPublisher.allCases : [usual]
    }

    /// A publisher of `family` on `url` that drops and comes back: the first ends 3 s from now
    /// (as the render starts), the second starts 2 s after that.
    final class DroppingPublishers: Sendable {
        let returning: ServerProcess
        /// When the first one had gone, in seconds since 1970.
        let dropped = Mutex<Double?>(nil)

        init(returning: ServerProcess) { self.returning = returning }
    }

    func dropAndReturn(_ family: ClockCodedPublisher, url: String) throws -> DroppingPublishers {
        let leaving = try servers.publishClockCoded(family, to: .rtmp(url: url))
        try waitUntilPlayable(url, publisher: leaving)
        let publishers = DroppingPublishers(returning: try servers.publishClockCoded(family, to: .rtmp(url: url), after: 5))
        DispatchQueue.global().asyncAfter(deadline: .now() + 3) {
            leaving.stop()
            publishers.dropped.withLock { $0 = Date().timeIntervalSince1970 }
        }
        return publishers
    }

    /// A phone on a train: the publisher's connection drops (its process ends, as an app killed
    /// by the system does) and a new one publishes to the same name 2 s later. The viewer must
    /// hold the last picture through the gap, then show the new publisher's pictures, smoothly
    /// and near the edge again, without the story failing. Read from the frames (publisher
    /// family: `droppingFamilies`): the returning pictures are those made after the first had
    /// gone.
    func testAPublisherThatDropsAndReturnsIsShownAgain() throws {
        try LiveServers.require("nginx")
        let port = try servers.rtmpServer()
        for family in Self.droppingFamilies(usual: .ffmpeg) {
            let url = "rtmp://127.0.0.1:\(port)/live/returns-\(family.rawValue)"
            let publishers = try dropAndReturn(family, url: url)
            defer { publishers.returning.stop() }
            let board = try board(url, clock: .realtime, seconds: 10,
                                  extra: #", "timeouts": {"open": 3, "read": 1, "retries": 6}"#)
            let (reading, _, events) = try watch(board)
            let gone = try XCTUnwrap(publishers.dropped.withLock { $0 }, "the first publisher was stopped")
            let failed = events.of(.failed).map { $0.error ?? "" }
            XCTAssertEqual(failed, [], "\(family): a publisher that comes back within the retries is not a failure")
            // A try of ours (the return, traced as a reconnect with its gap, is not one).
            XCTAssertGreaterThanOrEqual(events.of(.reconnect).filter { $0.gapMs == nil }.count, 1, "\(family): \(events.map(\.event.rawValue))")
            XCTAssertNotNil(events.of(.reconnect).first { $0.gapMs != nil }, "\(family): the return is traced with its gap")

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
            XCTAssertLessThan(resumedSecond, 8.5, "\(family): pictures resume within the retries' backoff")

            // And they flow as before, near the edge.
            let tail = reading.suffix(45)
            XCTAssertGreaterThanOrEqual(tail.distinctPerSecond, LiveClockTests.smooth(.realtime),
                                        "\(family): distinct pictures a second in the last 1.5 s: \(tail.diagnosis)")
            let latency = try XCTUnwrap(tail.latencyP50, "\(family): the last 1.5 s")
            XCTAssertLessThan(latency, 1000 * LiveClockTests.slack, "\(family): back near the edge after the return")
        }
    }
}

// MARK: - A room participant that drops and comes back

extension LiveClockTests {
    /// The same drop and return for a live room's participant, published with its sound
    /// (family: `droppingFamilies`): the participant is not failed, its sound thread and its
    /// video player both reconnect (traced with its id), its pictures come back in the large
    /// area, read from the frames, and its voice comes back in the MP4. It used to be failed for
    /// good at the drop.
    func testARoomParticipantThatDropsAndReturnsIsSeenAndHeardAgain() throws {
        try LiveServers.require("nginx")
        let port = try servers.rtmpServer()
        // A second participant, silent and without video, so the live one stays large.
        let quiet = servers.folder.file("quiet.m4a")
        let made = try servers.start("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-t", "14",
                                                "-c:a", "aac", quiet], name: "quiet")
        made.process.waitUntilExit()
        XCTAssertEqual(made.process.terminationStatus, 0, made.output)
        for family in Self.droppingFamilies(usual: .gstreamer) {
            let url = "rtmp://127.0.0.1:\(port)/live/room-\(family.rawValue)"
            let publishers = try dropAndReturn(family, url: url)
            defer { publishers.returning.stop() }
            let board = try Storyboard.parse("""
            {"canvas": {"width": 360, "height": 640, "fps": 30}, "duration": 10, "clock": "realtime",
             "timeouts": {"open": 3, "read": 1, "retries": 6},
             "stories": [{"id": "panel", "room": {"participants": [{"id": "dee", "uri": "\(url)"}, {"id": "zoe", "uri": "quiet.m4a"}]},
                          "duration": 30}]}
            """, folder: servers.folder.path)
            let output = ScratchFolder()
            let (summary, events, _) = try render(board, into: output, threads: 1) { options in
                options.clip = ClipOptions(path: output.file("room.mp4"))
            }
            let gone = try XCTUnwrap(publishers.dropped.withLock { $0 }, "the first publisher was stopped")
            XCTAssertEqual(events.of(.failed).map { $0.error ?? "" }, [], "\(family): the participant came back within its retries")
            XCTAssertEqual(summary.failedParticipants.map(\.participant), [], "\(family)")
            let reconnects = events.of(.reconnect).filter { $0.gapMs == nil }
            XCTAssertTrue(reconnects.contains { $0.participant == "dee" && $0.media == "audio" }, "\(family): \(reconnects.map(\.jsonLine))")
            XCTAssertTrue(reconnects.contains { $0.participant == "dee" && $0.media == nil }, "\(family): \(reconnects.map(\.jsonLine))")
            XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n"), maxAlive: 1, maxAudio: 2), [])

            // The large area, read as the publisher drew it: its video is fitted whole and centred.
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output.file("summary.json"))))
                                     as? [String: Any])
            let startedAt = try XCTUnwrap(json["clock_started_at"] as? Double)
            let layout = RoomLayout(width: 360, height: 640)
            let fitted = layout.fittedVideoSize(for: (ClockCode.width, ClockCode.height))
            let left = Int((layout.largeCentre.x - Double(fitted.width) / 2).rounded())
            let top = Int((layout.largeCentre.y - Double(fitted.height) / 2).rounded())
            let codes = try (0..<summary.frames).map { n -> ClockCode.Code? in
                let frame = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, n))
                return ClockCode.read(frame.cropped(x: left, y: top, width: fitted.width, height: fitted.height))
            }
            let reading = ClockCode.Reading(codes: codes, fps: 30, startedAt: startedAt, late: Set(summary.lateFrames))
            let back = codes.indices.first { n in codes[n].map { reading.made($0, frame: n, startedAt: startedAt) > gone } ?? false }
            XCTAssertNotNil(back, "\(family): the participant's pictures after the drop reach the large area")
            let tail = reading.suffix(45)
            XCTAssertGreaterThanOrEqual(tail.distinctPerSecond, LiveClockTests.smooth(.realtime), "\(family): the last 1.5 s: \(tail.diagnosis)")

            // And its voice: the publisher's tone in the clip's last seconds, silence while it was away.
            let samples = try monoSamples(of: output.file("room.mp4"), into: output.file("room.f32"))
            func level(_ from: Double, _ to: Double) -> Double {
                DominantSpeaker.rms(Array(samples[min(samples.count, Int(from * 8000))..<min(samples.count, Int(to * 8000))]))
            }
            XCTAssertGreaterThan(level(1, 2.5), 0.02, "\(family): the tone before the drop")
            XCTAssertLessThan(level(3.8, 4.8), 0.005, "\(family): silence while it was away (dropped at 3 s, back after 5 s)")
            XCTAssertGreaterThan(level(8, 10), 0.02, "\(family): the tone after the return")
        }
    }
}

extension LiveClockTests {
    /// A live room participant whose HLS broadcast ends (`#EXT-X-ENDLIST`) is heard, then has
    /// ended, not dropped: no reconnect (which would play its last segments again), and no
    /// failure. Its MPEG-TS sound, analysed for 0.1 s as live sources are, did not say its rate
    /// and channels by then, and the participant used to be muted (the MP4 at -91 dB).
    func testARoomParticipantWhosePlaylistEndsIsHeardAndNotReconnected() throws {
        let folder = servers.folder.file("room-ending")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let writer = try servers.start("ffmpeg", ["-v", "error", "-re", "-i", Fixture.sample("beach.mp4"), "-t", "3", "-c", "copy",
                                                  "-f", "hls", "-hls_time", "1", "-hls_list_size", "0", folder + "/live.m3u8"],
                                       name: "room-ending")
        XCTAssertTrue(LiveServers.waitUntil(20) {
            ((try? String(contentsOfFile: folder + "/live.m3u8", encoding: .utf8)) ?? "").components(separatedBy: ".ts").count > 2
        }, writer.output)
        let url = try servers.httpServer(root: folder) + "/live.m3u8"
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 6, "timeouts": {"open": 4, "read": 2, "retries": 2},
         "stories": [{"id": "panel", "room": {"participants": [{"id": "dee", "uri": "\(url)", "live": true}]}, "duration": 30}]}
        """, folder: servers.folder.path)
        let output = ScratchFolder()
        let (summary, events, _) = try render(board, into: output) { options in
            options.writeFrames = false
            options.clip = ClipOptions(path: output.file("room.mp4"))
        }
        XCTAssertEqual(events.of(.reconnect).filter { $0.media == "audio" }.map(\.jsonLine), [], "an ended playlist is not a drop")
        XCTAssertEqual(events.of(.failed).map(\.jsonLine), [])
        XCTAssertEqual(summary.failedParticipants.map(\.participant), [])
        let raw = output.file("room.f32")
        let decoded = try servers.start("ffmpeg", ["-v", "error", "-i", output.file("room.mp4"), "-vn", "-ac", "1", "-ar", "8000",
                                                   "-f", "f32le", raw], name: "decode-ending")
        decoded.process.waitUntilExit()
        let samples = try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        // beach.mp4's sound is at an RMS of 0.022 throughout; its 3 s are heard within the 6.
        let heard = stride(from: 0, to: samples.count - 4000, by: 4000).filter { start in
            DominantSpeaker.rms(Array(samples[start..<(start + 4000)])) > 0.01
        }
        XCTAssertGreaterThanOrEqual(heard.count, 3, "half-seconds of the participant's sound in the MP4")
    }
}
