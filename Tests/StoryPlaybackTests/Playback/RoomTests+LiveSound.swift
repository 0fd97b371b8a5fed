import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
@testable import StoryEncode
import StoryPlayerTestSupport
import XCTest

/// A live HLS participant's sound, heard where the room is, and followed when its publisher
/// goes away. Found by an audit of rooms with live cameras; the publisher here is ffmpeg's HLS
/// muxer, playing a loud tone over a test picture, served by python3's http.server.
extension RoomTests {
    /// An HLS publisher of a loud 440 Hz tone over a test picture, running in `servers`;
    /// returns the playlist's URL and its folder, once it lists `segments`. ffmpeg's HLS muxer
    /// cuts half-second segments; GStreamer's `hlssink2` (whose timestamps start elsewhere, and
    /// whose AAC comes from libav's encoder through `aacparse`) one-second ones.
    private func loudHLSPublisher(_ servers: ServerSet, segments: Int, gstreamer: Bool = false) throws -> (url: String, folder: String) {
        let root = servers.folder.path + "/hls"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        if gstreamer {
            try LiveServers.require("gst-launch-1.0")
            let pipeline = "videotestsrc is-live=true pattern=ball ! video/x-raw,width=160,height=90,framerate=30/1 ! videoconvert "
                + "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! h264parse ! queue "
                + "! hlssink2 name=s send-keyframe-requests=false location=\(root)/seg%05d.ts playlist-location=\(root)/live.m3u8 "
                + "target-duration=1 max-files=30 playlist-length=20 "
                + "audiotestsrc is-live=true wave=sine freq=440 volume=0.5 ! audioconvert ! avenc_aac ! aacparse ! queue ! s.audio"
            _ = try servers.start("gst-launch-1.0", ["-q"] + pipeline.split(separator: " ").map(String.init), name: "hls-loud")
        } else {
            _ = try servers.start("ffmpeg", ["-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=30",
                                             "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-af", "volume=0.5",
                                             "-c:v", "libx264", "-preset", "ultrafast", "-g", "15", "-c:a", "aac",
                                             "-f", "hls", "-hls_time", "0.5", "-hls_list_size", "20", root + "/live.m3u8"],
                                  name: "hls-loud")
        }
        let playlist = root + "/live.m3u8"
        let listed = LiveServers.waitUntil(30) {
            ((try? String(contentsOfFile: playlist, encoding: .utf8)) ?? "").components(separatedBy: "#EXTINF").count - 1 >= segments
        }
        guard listed else { throw LiveServers.unavailable("the HLS publisher did not list \(segments) segments") }
        return (try servers.httpServer(root: root) + "/live.m3u8", root)
    }

    /// With the virtual clock a live participant's sound starts with the room, whatever its
    /// publisher's timestamps: the room waits for it, so the loud participant is the speaker
    /// from its first windows on every run. Before, its sound was placed at the publisher's
    /// own timestamps (1.4 s plus the stream's age less 1.5 s here), past this 3 s room: never
    /// heard, no `speaker` event, and when the stream was younger, heard from a later second.
    func testAVirtualRoomHearsALiveParticipantFromItsStart() throws {
        try hearsALiveParticipantFromItsStart(gstreamer: false)
    }

    /// The same with GStreamer publishing (`hlssink2`): one-second segments, five of them, so
    /// the stream has run 5 s here too.
    func testAVirtualRoomHearsAGStreamerParticipantFromItsStart() throws {
        try hearsALiveParticipantFromItsStart(gstreamer: true)
    }

    private func hearsALiveParticipantFromItsStart(gstreamer: Bool) throws {
        try LiveServers.require("python3")
        let servers = ServerSet()
        defer { servers.stopAll() }
        let live = try loudHLSPublisher(servers, segments: gstreamer ? 5 : 10, gstreamer: gstreamer)
        let board = try Storyboard.parse("""
        {"canvas": {"width": 144, "height": 256, "fps": 10}, "duration": 3,
         "stories": [{"id": "panel", "room": {"participants": [
           {"id": "cy", "uri": "cy.mp4"}, {"id": "hy", "uri": "\(live.url)", "live": true}]}}]}
        """, folder: folder.path)
        let (summary, events, _) = try render(board)
        XCTAssertEqual(summary.failedParticipants.map(\.participant), [])
        let speaker = try XCTUnwrap(events.of(.speaker).first, "no speaker: the live participant was not heard")
        XCTAssertEqual(speaker.participant, "hy")
        XCTAssertLessThanOrEqual(speaker.t, 1.0, "heard from the room's start")
    }

    /// On the realtime clock an HLS participant's sound, which comes half a second at a time,
    /// is heard whole once it has started: no 20 ms without the tone over the next 1.5 s of the
    /// MP4 (frames the render drew late, whose sound is silence, left out). A pushed source's
    /// sound is placed from the block that came nearest its edge (`SoundPlacement`); the same
    /// rule for a source of segments placed each segment by its newest block, and all but the
    /// last 0.09 s of it lay before its own arrival: 106 holes in 2.2 s.
    func testARealtimeRoomHearsAnHLSParticipantWhole() throws {
        try LiveServers.require("python3")
        let servers = ServerSet()
        defer { servers.stopAll() }
        let live = try loudHLSPublisher(servers, segments: 4)
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 6, "clock": "realtime",
         "stories": [{"id": "panel", "room": {"participants": [{"id": "hy", "uri": "\(live.url)", "live": true}]}}]}
        """, folder: folder.path)
        let output = ScratchFolder()
        let (summary, _, _) = try render(board, into: output) { options in
            options.clip = ClipOptions(path: output.file("room.mp4"))
        }
        XCTAssertEqual(summary.failedParticipants.map(\.participant), [])
        let raw = output.file("room.f32")
        let decoded = try servers.start("ffmpeg", ["-v", "error", "-i", output.file("room.mp4"), "-vn", "-ac", "1", "-ar", "8000", "-f", "f32le", raw],
                                        name: "decode")
        decoded.process.waitUntilExit()
        let samples = try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        // A window under an RMS of 0.03 (the tone, mixed into the room, is well above) is a hole.
        func level(_ start: Double) -> Double {
            DominantSpeaker.rms(Array(samples[min(samples.count, Int(start * 8000))..<min(samples.count, Int((start + 0.02) * 8000))]))
        }
        let heard = try XCTUnwrap(stride(from: 0.0, to: 4.0, by: 0.02).first { level($0) >= 0.03 }, "the tone is heard within 4 s")
        let from = heard + 0.5
        let late = Set(summary.lateFrames)
        let holes = stride(from: from, to: from + 1.5, by: 0.02).filter { start in
            !late.contains(Int(start * 10)) && !late.contains(Int((start + 0.02) * 10)) && level(start) < 0.03
        }
        XCTAssertEqual(holes.count, 0, "20 ms windows without the tone after \(heard) s: \(holes.prefix(20).map { String(format: "%.2f", $0) })")
    }

    /// On the realtime clock, a live participant whose publisher goes away (the playlist then
    /// 404s) is reconnected by its sound thread, then failed, and reported; and, failed, it
    /// gives the large area up to the working camera. Before, FFmpeg's HLS reader ended cleanly
    /// and the sound thread took that for `#EXT-X-ENDLIST`: the sound stopped with no
    /// `reconnect`, no `failed` and no failed participant (the audit's case, with the
    /// participant in the strip); and a failed dominant speaker stayed large to the end.
    func testARealtimeRoomReconnectsThenFailsALiveParticipantWhosePublisherWentAway() throws {
        try LiveServers.require("python3")
        try ffmpeg(["-f", "lavfi", "-i", "color=c=yellow:s=180x320:r=30:d=8", "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-t", "8",
                    folder.file("mute.mp4")])
        let servers = ServerSet()
        defer { servers.stopAll() }
        let live = try loudHLSPublisher(servers, segments: 4)
        let board = try Storyboard.parse("""
        {"canvas": {"width": 144, "height": 256, "fps": 10}, "duration": 7, "clock": "realtime",
         "timeouts": {"open": 2, "read": 1, "retries": 1},
         "stories": [{"id": "panel", "room": {"participants": [
           {"id": "mute", "uri": "mute.mp4"}, {"id": "hy", "uri": "\(live.url)", "live": true}]}}]}
        """, folder: folder.path)
        let publisher = try XCTUnwrap(servers.running.first { $0.name == "hls-loud" })
        let gone = DispatchWorkItem {
            publisher.stop()
            try? FileManager.default.removeItem(atPath: live.folder)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 1.5, execute: gone)
        let output = ScratchFolder()
        let (summary, events, _) = try render(board, into: output)
        gone.wait()
        XCTAssertEqual(events.of(.speaker).first?.participant, "hy", "the loud participant is heard first")
        let reconnects = events.of(.reconnect).filter { $0.participant == "hy" && $0.media == "audio" }
        XCTAssertFalse(reconnects.isEmpty, "the sound thread reconnects: \(events.map(\.jsonLine).joined(separator: "\n"))")
        let failed = try XCTUnwrap(events.of(.failed).first { $0.participant == "hy" }, "then fails")
        XCTAssertEqual(summary.failedParticipants.map(\.participant), ["hy"])
        XCTAssertLessThan(failed.t, 6, "failed with time to spare")
        let last = [69, 68, 67].first { !summary.lateFrames.contains($0) }!
        let centre = try largeCentre(output, frame: last)
        XCTAssertLessThan(centre.distance(to: RGBAColor(red: 255, green: 255, blue: 0)), 60,
                          "frame \(last): the working (yellow) camera is large, not the failed one: \(centre)")
    }

    /// A local live playlist that has ended (`#EXT-X-ENDLIST`) ends the participant's sound:
    /// no reconnect, no failure. Found in review: the sound thread asked for the playlist
    /// through network protocols only, so a local one read as not ended, and its sound was
    /// played again from the start at each of `retries` reconnects, then failed.
    func testALocalLivePlaylistThatHasEndedEndsWithoutAReconnect() throws {
        let playlist = folder.file("ended/live.m3u8")
        try FileManager.default.createDirectory(atPath: folder.file("ended"), withIntermediateDirectories: true)
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x90:r=30:d=1.5", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:d=1.5",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "15", "-c:a", "aac", "-f", "hls", "-hls_time", "0.5",
                    "-hls_playlist_type", "vod", playlist])
        let board = try Storyboard.parse("""
        {"canvas": {"width": 144, "height": 256, "fps": 10}, "duration": 4, "timeouts": {"open": 2, "read": 1, "retries": 2},
         "stories": [{"id": "panel", "room": {"participants": [
           {"id": "cy", "uri": "cy.mp4"}, {"id": "hy", "uri": "ended/live.m3u8", "live": true}]}}]}
        """, folder: folder.path)
        let (summary, events, _) = try render(board)
        XCTAssertEqual(events.of(.reconnect).filter { $0.participant == "hy" }.map(\.jsonLine), [])
        XCTAssertEqual(summary.failedParticipants.map(\.participant), [])
    }
}
