import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// Live sources as publishers really send them, on every transport: video with AAC sound (the
/// way OBS and every encoder publish), video only, and sound only; over RTMP (nginx-rtmp), HLS
/// (ffmpeg's muxer served over HTTP), SRT (an ffmpeg listener) and MPEG-TS over HTTP (ffmpeg
/// `-listen`). Every server is real, on 127.0.0.1, and stopped again at the end.
final class LivePublisherTests: LiveServerTestCase {
    /// One publisher's stream.
    struct Published {
        let tracks: PublishedTracks
        let url: String
    }

    // MARK: - Publishers on each transport

    func rtmpPublishers(_ kinds: [PublishedTracks] = PublishedTracks.allCases, reencode: Bool = false) throws -> [Published] {
        try LiveServers.require("nginx")
        let port = try servers.rtmpServer()
        return try kinds.map { tracks in
            let url = "rtmp://127.0.0.1:\(port)/live/\(tracks.rawValue)"
            let publisher = try servers.publish(tracks, to: url, format: "flv", reencode: reencode)
            // nginx-rtmp accepts a play before the publisher is there; wait until it relays.
            let ready = LiveServers.waitUntil(20) { (try? MediaProbe.run(url, timeouts: Timeouts(open: 1.5, read: 1.5))) != nil }
            XCTAssertTrue(ready, "RTMP \(tracks) never became playable: \(publisher.output)")
            return Published(tracks: tracks, url: url)
        }
    }

    func hlsPublishers(_ kinds: [PublishedTracks] = PublishedTracks.allCases) throws -> [Published] {
        let root = servers.folder.file("hls-root")
        var playlists: [(PublishedTracks, String)] = []
        for tracks in kinds {
            let folder = root + "/" + tracks.rawValue
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let publisher = try servers.publish(tracks, to: folder + "/live.m3u8", format: "hls",
                                                extra: ["-hls_time", "1", "-hls_list_size", "5", "-hls_flags", "delete_segments"])
            let ready = LiveServers.waitUntil(20) {
                ((try? String(contentsOfFile: folder + "/live.m3u8", encoding: .utf8)) ?? "").components(separatedBy: ".ts").count > 2
            }
            XCTAssertTrue(ready, "HLS \(tracks) wrote no playlist: \(publisher.output)")
            playlists.append((tracks, tracks.rawValue + "/live.m3u8"))
        }
        let base = try servers.httpServer(root: root)
        return playlists.map { Published(tracks: $0.0, url: base + "/" + $0.1) }
    }

    /// An SRT listener serves one caller, so each publisher has its own port. `respawning` starts
    /// a new listener each time a caller leaves, as an SRT server takes callers one after another
    /// (the preload window's probe is a caller too).
    func srtPublishers(_ kinds: [PublishedTracks] = PublishedTracks.allCases, respawning: Bool = false) throws -> [Published] {
        try kinds.map { tracks in
            let port = LiveServers.freePort()
            let output = "srt://127.0.0.1:\(port)?mode=listener"
            let publisher: ServerProcess
            if respawning {
                let command = (["ffmpeg", "-v", "error", "-re", "-stream_loop", "-1", "-i", Fixture.sample("beach.mp4"), "-c", "copy"]
                               + tracks.arguments + ["-f", "mpegts", output]).map { "'\($0)'" }.joined(separator: " ")
                publisher = try servers.start("bash", ["-c", "trap 'kill $p 2>/dev/null; exit 0' TERM INT; while :; do \(command) & p=$!; wait $p; done"],
                                              name: "srt-\(port)")
            } else {
                publisher = try servers.publish(tracks, to: output, format: "mpegts")
            }
            XCTAssertTrue(LiveServers.waitUntil(10) { LiveServers.udpBound(port: port) }, "SRT \(tracks): \(publisher.output)")
            return Published(tracks: tracks, url: "srt://127.0.0.1:\(port)?mode=caller")
        }
    }

    /// `ffmpeg -listen 1` serves MPEG-TS over HTTP to one client, from the moment it connects.
    func httpTSPublishers(_ kinds: [PublishedTracks] = PublishedTracks.allCases) throws -> [Published] {
        try kinds.map { tracks in
            let port = LiveServers.freePort()
            let publisher = try servers.publish(tracks, to: "http://127.0.0.1:\(port)/live.ts", format: "mpegts", extra: ["-listen", "1"])
            XCTAssertTrue(LiveServers.waitUntil(10) { LiveServers.tcpListening(port: port) }, "HTTP-TS \(tracks): \(publisher.output)")
            return Published(tracks: tracks, url: "http://127.0.0.1:\(port)/live.ts")
        }
    }

    // MARK: - Every transport, every publisher

    /// Plays every stream at once with the realtime clock, as a phone would, and checks that a
    /// publisher with video shows pictures, and one with sound only plays (its ring would go
    /// off) without a picture and without failing.
    func assertPlaysAsPublished(_ streams: [Published], transport: String, file: StaticString = #filePath, line: UInt = #line) {
        let trace = LifecycleTrace()
        var limits = DecodeLimits()
        limits.timeouts = Timeouts(open: 6, read: 4, retries: 1)
        let players = streams.map { stream in
            let story = Story(id: stream.tracks.rawValue,
                              items: [StoryItem(source: MediaSource(uri: stream.url, relativeTo: "/"), isLive: true)])
            return StoryPlaybackController(story: story, canvas: Canvas(width: 72, height: 128), limits: limits, playback: .realtime, trace: trace)
        }
        let started = ContinuousClock.now
        for player in players { player.play(item: 0, at: 0) }
        var soundSince: [Int: Double] = [:]
        let settled = LiveServers.waitUntil(10) {
            let t = (ContinuousClock.now - started).seconds
            var done = true
            for (index, player) in players.enumerated() {
                guard let item = player.current, !item.isFailed else { continue }
                _ = item.picture(at: t)
                if streams[index].tracks == .soundOnly {
                    if item.playsSoundOnly { soundSince[index] = soundSince[index] ?? t }
                    // Sound has played for a second and no picture came with it.
                    done = done && (soundSince[index].map { t - $0 >= 1 } ?? false)
                } else {
                    done = done && item.pictures > 0
                }
            }
            return done || players.allSatisfy { $0.current?.isFailed ?? true }
        }
        let t = (ContinuousClock.now - started).seconds
        for player in players { player.stop(at: t) }
        let failures = trace.events.of(.failed).map { "\($0.story): \($0.error ?? "")" }
        XCTAssertEqual(failures, [], "\(transport)", file: file, line: line)
        XCTAssertTrue(settled, "\(transport): not every stream settled: \(trace.jsonLines)", file: file, line: line)
        for stop in trace.events.of(.stop) {
            let tracks = PublishedTracks(rawValue: stop.story)!
            if tracks == .soundOnly {
                XCTAssertEqual(stop.pictures, 0, "\(transport) \(stop.story)", file: file, line: line)
            } else {
                XCTAssertGreaterThan(stop.pictures ?? 0, 0, "\(transport) \(stop.story)", file: file, line: line)
            }
        }
        XCTAssertEqual(trace.events.of(.firstFrame).count, streams.filter { $0.tracks != .soundOnly }.count,
                       "\(transport): a firstFrame for each stream with video", file: file, line: line)
        // The streams play side by side here, not in a viewer: one player alive per stream.
        XCTAssertEqual(TraceCheck.check(trace.jsonLines, maxAlive: streams.count), [], file: file, line: line)
    }

    func testRTMPPublishers() throws {
        assertPlaysAsPublished(try rtmpPublishers(), transport: "RTMP")
    }

    /// The issue's own report: a publisher that encodes as OBS does (`-c:v libx264 -g 30 -c:a
    /// aac`) failed 2 renders in 3 with "no video stream", because nginx relays its sound before
    /// the first keyframe. Five opens in a row must each show a picture.
    func testRTMPReencodingPublisherWithSoundPlaysEveryTime() throws {
        let stream = try XCTUnwrap(try rtmpPublishers([.videoAndSound], reencode: true).first)
        for attempt in 1...5 {
            let probe = try MediaProbe.run(stream.url, timeouts: Timeouts(open: 4, read: 4))
            XCTAssertEqual(probe.kind, .video, "open \(attempt)")
            XCTAssertEqual(probe.codec, "h264", "open \(attempt)")
            XCTAssertTrue(probe.streams.contains { if case .audio(_, "aac", _, _) = $0 { true } else { false } }, "\(probe.streams)")
        }
    }

    /// `probe` of a live RTMP stream: live, and no duration. A publisher told how long to go on
    /// (`ffmpeg -t 600`) writes that into the FLV header's `duration`, which nginx relays; the
    /// stream is live all the same, and has no length to play to.
    func testAProbedRTMPStreamHasNoDuration() throws {
        try LiveServers.require("nginx")
        let url = "rtmp://127.0.0.1:\(try servers.rtmpServer())/live/timed"
        let publisher = try servers.publish(.videoAndSound, to: url, format: "flv", extra: ["-t", "600"])
        var probed: MediaProbe?
        XCTAssertTrue(LiveServers.waitUntil(20) {
            probed = try? MediaProbe.run(url, timeouts: Timeouts(open: 4, read: 4))
            return probed != nil
        }, "never playable: \(publisher.output)")
        let probe = try XCTUnwrap(probed)
        XCTAssertTrue(probe.isLive)
        XCTAssertNil(probe.duration, "\(probe.text)")
        XCTAssertTrue(probe.json.contains(#""duration": null"#), probe.json)
        XCTAssertTrue(probe.text.contains("duration     none"), probe.text)
    }

    func testHLSPublishers() throws {
        assertPlaysAsPublished(try hlsPublishers(), transport: "HLS")
    }

    func testSRTPublishers() throws {
        assertPlaysAsPublished(try srtPublishers(), transport: "SRT")
    }

    func testMPEGTSOverHTTPPublishers() throws {
        assertPlaysAsPublished(try httpTSPublishers(), transport: "HTTP-TS")
    }
}
