import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
@testable import StoryEncode
import StoryPlayerTestSupport
import XCTest

// MARK: - A live source of sound only, heard in the MP4

extension LiveClockTests {
    /// A live publisher of sound only (a radio stream, an audio room) is heard in the MP4 on
    /// either clock (each source on one, taking turns), over RTMP and DASH from ffmpeg and from
    /// GStreamer, and over HLS, SRT and MPEG-TS over HTTP: a 440 Hz tone, read
    /// back from the MP4, steady from the first second to the story's end, without a gap. The
    /// MP4 used to be silent (-91 dB), because its sound was read at the pictures' clock, which
    /// a source without pictures never starts. The virtual clock waits for the sound as it
    /// comes, so its last second is heard too, without waiting out the open timeout for a
    /// first picture that a source of sound only never sends.
    func testALiveSourceOfSoundOnlyIsHeardInTheMP4() throws {
        try LiveServers.require("nginx")
        let port = try servers.rtmpServer()
        var sources: [(label: String, url: String)] = []
        for family in [ClockCodedPublisher.ffmpeg, .gstreamer] {
            try LiveServers.require(family.programs)
            let url = "rtmp://127.0.0.1:\(port)/live/radio-\(family.rawValue)"
            let command = family == .ffmpeg
                ? "ffmpeg -v error -re -f lavfi -i sine=frequency=440:sample_rate=48000 -c:a aac -f flv '\(url)'"
                : "gst-launch-1.0 -q audiotestsrc is-live=true wave=sine freq=440 volume=0.125 ! audioconvert ! avenc_aac ! aacparse ! queue "
                    + "! flvmux streamable=true ! rtmp2sink location='\(url)'"
            _ = try publishToRTMP(command, url: url, name: "radio-\(family.rawValue)")
            sources.append(("RTMP from \(family)", url))
        }
        // HLS of sound only too, as radio stations stream it: AAC in MPEG-TS segments.
        let folder = servers.folder.file("radio-hls")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let hls = try servers.start("ffmpeg", ["-v", "error", "-re", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-c:a", "aac",
                                               "-f", "hls", "-hls_time", "1", "-hls_list_size", "5", "-hls_flags", "delete_segments",
                                               folder + "/live.m3u8"], name: "radio-hls")
        guard LiveServers.waitUntil(20, {
            ((try? String(contentsOfFile: folder + "/live.m3u8", encoding: .utf8)) ?? "").components(separatedBy: ".ts").count > 3
        }) else { throw LiveServers.unavailable("ffmpeg wrote no HLS playlist: \(hls.output)") }
        sources.append(("HLS from ffmpeg", try servers.httpServer(root: folder) + "/live.m3u8"))
        // DASH of sound only, from ffmpeg's dash muxer (fragmented MP4 on a segment timeline) and
        // from GStreamer's dashsink (numbered MPEG-TS segments). Such a manifest used to fail its
        // story: the segment reader looked for a video representation only.
        let dashCommands = [
            ("ffmpeg", "ffmpeg -v error -re -f lavfi -i sine=frequency=440:sample_rate=48000 -c:a aac -f dash -seg_duration 1 "
                + "-window_size 5 -extra_window_size 5 -use_template 1 -use_timeline 1 '%@/live.mpd'"),
            ("GStreamer", "gst-launch-1.0 -q dashsink name=d dynamic=true mpd-root-path='%@' mpd-filename=live.mpd target-duration=1 "
                + "muxer=ts audiotestsrc is-live=true wave=sine freq=440 volume=0.125 ! audioconvert ! avenc_aac ! aacparse ! queue ! d.audio_0"),
        ]
        // Both start before either is waited for: each needs a few segments written.
        let dashes = try dashCommands.map { family, command in
            let folder = servers.folder.file("radio-dash-\(family)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let process = try servers.start("/bin/sh", ["-c", "exec " + command.replacingOccurrences(of: "%@", with: folder)],
                                            name: "radio-dash-\(family)")
            return (family, folder, process)
        }
        for (family, folder, process) in dashes {
            guard LiveServers.waitUntil(20, {
                ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix("init") && !$0.hasSuffix(".mpd") }.count > 3
                    && FileManager.default.fileExists(atPath: folder + "/live.mpd")
            }) else { throw LiveServers.unavailable("\(family) wrote no DASH manifest: \(process.output)") }
            sources.append(("DASH from \(family)", try servers.httpServer(root: folder) + "/live.mpd"))
        }
        // Each source on one clock, the clocks taking turns (each protocol family meets both):
        // every source on both took 50 s of CI's time, for the same code paths.
        for (index, (family, url)) in sources.enumerated() {
            try assertSoundOnlyIsHeard(family, url: url, clock: index % 2 == 0 ? .virtual : .realtime)
        }
        // SRT and MPEG-TS over HTTP from ffmpeg, whose listeners serve one viewer each: a
        // publisher for every render.
        let tone = ["-v", "error", "-re", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-c:a", "aac", "-f", "mpegts"]
        for (kind, clocks) in [("SRT", [PlaybackClock.realtime]), ("MPEG-TS over HTTP", [PlaybackClock.virtual])] {
            for clock in clocks {
                let port = LiveServers.freePort()
                let srt = kind == "SRT"
                let listener = srt ? ["srt://127.0.0.1:\(port)?mode=listener"] : ["-listen", "1", "http://127.0.0.1:\(port)/live.ts"]
                let publisher = try servers.start("ffmpeg", tone + listener, name: "radio-\(srt ? "srt" : "http")-\(clock.rawValue)")
                defer { publisher.stop() }
                guard LiveServers.waitUntil(15, { srt ? LiveServers.udpBound(port: port) : LiveServers.tcpListening(port: port) }) else {
                    throw LiveServers.unavailable("\(kind) publisher did not listen: \(publisher.output)")
                }
                try assertSoundOnlyIsHeard("\(kind) from ffmpeg", url: srt ? "srt://127.0.0.1:\(port)?mode=caller" : "http://127.0.0.1:\(port)/live.ts",
                                           clock: clock)
            }
        }
    }

    /// Renders 3 s of a live source of sound only with an MP4 and hears the tone in it.
    private func assertSoundOnlyIsHeard(_ family: String, url: String, clock: PlaybackClock) throws {
        let board = try self.board(url, clock: clock, seconds: 3, saysLive: true, canvas: (72, 128),
                                   extra: #", "timeouts": {"open": 20, "read": 2, "retries": 1}"#)
        let output = ScratchFolder()
        let started = Date()
        let (_, events, _) = try render(board, into: output, threads: 1) { options in
            options.clip = ClipOptions(path: output.file("radio.mp4"))
        }
        // The virtual clock waits for a first picture until the open timeout (20 s), but
        // not from a source that has sent 2 s of sound and no video: it took 8.2 s for a
        // 3 s story with the default timeout of 8 s. Far from any noise either way.
        XCTAssertLessThan(Date().timeIntervalSince(started), 12, "\(family), \(clock): the render waited out the open timeout")
        XCTAssertEqual(events.of(.failed).map { $0.error ?? "" }, [], "\(family), \(clock)")
        let samples = try monoSamples(of: output.file("radio.mp4"), into: output.file("radio.f32"))
        func level(_ from: Double, _ to: Double) -> Double {
            DominantSpeaker.rms(Array(samples[min(samples.count, Int(from * 8000))..<min(samples.count, Int(to * 8000))]))
        }
        // The tone's RMS is 0.088 (amplitude 1/8); a 20 ms window under a third of it is a gap.
        XCTAssertGreaterThan(level(1, 2.9), 0.06, "\(family), \(clock): the tone, from the first second to the end")
        let gaps = stride(from: 1.0, to: 2.9, by: 0.02).filter { level($0, $0 + 0.02) < 0.03 }
        XCTAssertEqual(gaps, [], "\(family), \(clock): 20 ms windows without the tone")
    }
}

// MARK: - A camera whose keyframe has not come is not a source of sound only

extension LiveClockTests {
    /// nginx-rtmp holds a camera's video back from a new viewer until its next keyframe
    /// (`wait_key`), and sends its sound meanwhile. With a 5 s GOP, joined just after a
    /// keyframe, that is 4 s of sound and not one video packet, more than the 2 s after which
    /// the virtual clock stops waiting for a first picture from a source of sound only. Its
    /// `onMetaData` says there is video, so the render waits for the picture, and the story's
    /// first frame shows the camera (red), not the loading card.
    func testALongGOPCameraOverRTMPIsWaitedForOnTheVirtualClock() throws {
        try LiveServers.require("nginx")
        let port = try servers.rtmpServer()
        let url = "rtmp://127.0.0.1:\(port)/live/long-gop"
        let command = "ffmpeg -v error -re -f lavfi -i color=c=red:size=320x240:rate=30 -f lavfi -i sine=frequency=440:sample_rate=48000 "
            + "-c:v libx264 -preset veryfast -g 150 -keyint_min 150 -sc_threshold 0 -pix_fmt yuv420p -c:a aac -f flv '\(url)'"
        let started = Date()
        let publisher = try publishToRTMP(command, url: url, name: "long-gop")
        // Keyframes at about 0, 5, 10 s of the publisher's time: joined at 6 s, the next is 4 s away.
        Thread.sleep(forTimeInterval: max(0, 6 - Date().timeIntervalSince(started)))
        let board = try self.board(url, clock: .virtual, seconds: 1, saysLive: true, canvas: (72, 128),
                                   extra: #", "timeouts": {"open": 20, "read": 5, "retries": 1}"#)
        let output = ScratchFolder()
        let (_, events, _) = try render(board, into: output, threads: 1)
        publisher.stop()
        XCTAssertEqual(events.of(.failed).map { $0.error ?? "" }, [])
        let first = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, 0))
        XCTAssertEqual(dominantChannel(first[36, 64]), "red", "the first frame shows the camera, not the loading card")
    }
}

// MARK: - Video that comes after the sound

extension LiveClockTests {
    /// A publisher that sends sound first and its camera seconds later (a podcast that turns
    /// the camera on), past the open timeout: the camera's pictures take over when they come, on
    /// either clock. The item used to fail at the camera's first packet ("no picture within
    /// 1.5 s of opening"), since the open timeout had run out before it.
    func testVideoThatComesAfterTheSoundTakesOver() throws {
        try LiveServers.require("nginx")
        let port = try servers.rtmpServer()
        // The recording published: sound from 0 s, the camera (red) from 6 s. ffmpeg cannot
        // publish such a stream as it encodes it (it writes nothing until every encoder has had
        // a first frame), so it is made first and published as it is, in real time, without
        // holding the sound back for the camera's packets (`max_interleave_delta` 0.1 s; 0 would
        // wait for them).
        let recording = servers.folder.file("camera-later.flv")
        let made = try servers.start("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=20",
                                                "-itsoffset", "6", "-f", "lavfi", "-i", "color=c=red:size=320x240:rate=30:duration=14",
                                                "-map", "0:a", "-map", "1:v", "-c:v", "libx264", "-preset", "veryfast", "-g", "30",
                                                "-pix_fmt", "yuv420p", "-c:a", "aac", recording], name: "camera-later-recording")
        guard LiveServers.waitUntil(30, { !made.isRunning }), FileManager.default.fileExists(atPath: recording) else {
            throw LiveServers.unavailable("ffmpeg made no recording: \(made.output)")
        }
        for clock in [PlaybackClock.virtual, .realtime] {
            let url = "rtmp://127.0.0.1:\(port)/live/camera-later-\(clock.rawValue)"
            let command = "ffmpeg -v error -re -i '\(recording)' -c copy -max_interleave_delta 100000 -f flv '\(url)'"
            let started = Date()
            let publisher = try publishToRTMP(command, url: url, name: "camera-later-\(clock.rawValue)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 4.5, "\(clock): the sound was playable well before the camera came")
            let board = try self.board(url, clock: clock, seconds: 9, saysLive: true, canvas: (72, 128),
                                       extra: #", "timeouts": {"open": 1.5, "read": 3, "retries": 1}"#)
            let output = ScratchFolder()
            let (summary, events, _) = try render(board, into: output, threads: 1)
            publisher.stop()
            XCTAssertEqual(events.of(.failed).map { $0.error ?? "" }, [], "\(clock)")
            let last = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, summary.frames - 1))
            XCTAssertEqual(dominantChannel(last[36, 64]), "red", "\(clock): the camera, once it came")
        }
    }
}
