import Foundation
import XCTest

/// Issue 63: recording a room's life. Live participants published with sound by ffmpeg and
/// GStreamer through nginx-rtmp, one of them killed and restarted mid-recording: the recording
/// never stops for them, and its timestamps stay continuous (no gap, none backwards, no
/// duplicate), with 30 frames for each second recorded. `--until-empty S` ends a recording S
/// seconds after the last participant has gone.
final class RecordRoomTests: LiveServerTestCase {
    let folder = ScratchFolder()

    /// A room of `participants` (id, uri), lasting 10 minutes, with the live timeouts given.
    func roomBoard(_ participants: [(String, String)], timeouts: String = #"{"open": 3, "read": 1, "retries": 6}"#) throws -> String {
        let list = participants.map { #"{"id": "\#($0.0)", "uri": "\#($0.1)"}"# }.joined(separator: ", ")
        return try RecordBoards.write("""
        {"canvas": {"width": 180, "height": 320, "fps": 30}, "timeouts": \(timeouts),
         "stories": [{"id": "panel", "room": {"participants": [\(list)]}, "duration": 600}]}
        """, named: "live-room.json", in: folder)
    }

    /// A participant's publisher (ffmpeg) is killed 3 s into the recording and started again 2 s
    /// later, while a GStreamer one goes on. The participant reconnects and is not failed; the
    /// HLS and the MP4 segment have every frame, 30 a second of the wall clock, their video and
    /// sound timestamps without a gap, a step back or a repeat.
    func testALiveParticipantRestartedMidRecordingLeavesTheTimestampsContinuous() throws {
        try LiveServers.require("nginx", "gst-launch-1.0")
        let port = try servers.rtmpServer()
        let fern = "rtmp://127.0.0.1:\(port)/live/fern", gus = "rtmp://127.0.0.1:\(port)/live/gus"
        let first = try servers.publishTestPattern(.ffmpeg, to: fern)
        _ = try servers.publishTestPattern(.gstreamer, to: gus)
        let board = try roomBoard([("fern", fern), ("gus", gus)])
        let hls = HLSFolder(path: folder.file("hls")), segments = folder.file("segments")
        let recording = try Recording(board, out: folder.file("rec"), ["--duration", "13", "--hls", hls.path, "--hls-segment", "1",
                                                                       "--hls-window", "0", "--segments", segments], folder: folder)
        XCTAssertTrue(LiveServers.waitUntil(30) { hls.listed.count >= 3 || !recording.isRunning }, recording.said)
        first.stop()
        XCTAssertTrue(LiveServers.waitUntil(30) { hls.listed.count >= 5 || !recording.isRunning }, recording.said)
        _ = try servers.publishTestPattern(.ffmpeg, to: fern)
        XCTAssertEqual(recording.exitStatus(within: 60), 0, recording.said)
        let exitedAt = Date().timeIntervalSince1970

        let reconnects = recording.events("reconnect").filter { $0["participant"] as? String == "fern" }
        XCTAssertFalse(reconnects.isEmpty, "fern's publisher went away and came back: \(recording.events.suffix(40))")
        XCTAssertEqual(recording.events("failed").count, 0, "nobody failed: \(recording.events("failed"))")
        let record = try XCTUnwrap(recording.record, "\(recording.summary ?? [:])")
        let frames = try XCTUnwrap(record["frames"] as? Int), seconds = try XCTUnwrap((record["seconds"] as? NSNumber)?.doubleValue)
        XCTAssertEqual(frames, 13 * 30, "13 s of stream, 30 frames a second, whatever the publishers did: \(record)")
        // And on the wall clock: the stream kept pace with the time the recording ran (frame 0
        // due at clock_started_at; the clean stop after the last frame takes well under 2 s).
        let started = try XCTUnwrap(recording.summary?["clock_started_at"] as? Double)
        XCTAssertEqual(seconds, exitedAt - started, accuracy: 2, "the stream's seconds are the wall clock's: \(record)")
        let joined = try hls.joined(into: folder.file("room-hls.mp4"))
        let segment = segments + "/" + (segmentFiles(segments).first ?? "")
        for (path, what) in [(joined, "HLS"), (segment, "MP4 segment")] {
            let video = try MediaReadBack.packets(path)
            XCTAssertEqual(video.count, frames, "\(what): every frame")
            XCTAssertEqual(TimestampContinuity.faults(video, fps: 30), [], "\(what): video")
            let sound = try MediaReadBack.packets(path, stream: "a:0")
            XCTAssertEqual(TimestampContinuity.faults(sound, fps: 48000.0 / 1024), [], "\(what): AAC frames of 1024 samples")
            XCTAssertEqual(Double(sound.count) * 1024 / 48000, seconds, accuracy: 0.2, "\(what): sound as long as the pictures")
        }
    }

    /// `--until-empty 2` with participants whose recordings last 3 s: once they have left (at
    /// their files' end) and the room has been empty 2 s, the recording ends by itself, cleanly
    /// (exit 0, the playlist ended), long before its `--duration`.
    func testUntilEmptyEndsTheRecordingOnceTheLastParticipantHasLeft() throws {
        let clip = folder.file("short.mp4")
        try ExternalProgram.run(try TestPrograms.tool("ffmpeg"), [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=30:d=3", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:d=3",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", clip])
        let board = try roomBoard([("hal", clip), ("ivy", clip)])
        let hls = HLSFolder(path: folder.file("hls"))
        let recording = try Recording(board, out: folder.file("rec"), ["--duration", "60", "--until-empty", "2",
                                                                       "--hls", hls.path, "--hls-window", "0"], folder: folder)
        XCTAssertEqual(recording.exitStatus(within: 40), 0, "ended by --until-empty, not by its 60 s: \(recording.said)")
        let seconds = try XCTUnwrap((recording.record?["seconds"] as? NSNumber)?.doubleValue, "\(recording.summary ?? [:])")
        XCTAssertGreaterThanOrEqual(seconds, 5 - 0.1, "3 s of participants, then 2 s of an empty room")
        XCTAssertLessThan(seconds, 10, "ended after the room had been empty 2 s")
        XCTAssertTrue(hls.playlist.hasSuffix("#EXT-X-ENDLIST\n"), "a clean end: \(hls.playlist)")
    }

    /// `--until-empty 2` with a live participant whose publisher goes away for good: after its
    /// one reconnect it has gone, and 2 s later the recording ends by itself (exit 0).
    func testUntilEmptyEndsTheRecordingOnceTheLastLiveParticipantIsGone() throws {
        try LiveServers.require("nginx")
        let url = "rtmp://127.0.0.1:\(try servers.rtmpServer())/live/jo"
        let publisher = try servers.publishTestPattern(.ffmpeg, to: url)
        let board = try roomBoard([("jo", url)], timeouts: #"{"open": 2, "read": 1, "retries": 1}"#)
        let hls = HLSFolder(path: folder.file("hls"))
        let recording = try Recording(board, out: folder.file("rec"), ["--duration", "60", "--until-empty", "2",
                                                                       "--hls", hls.path, "--hls-window", "0", "--hls-segment", "1"],
                                      folder: folder)
        XCTAssertTrue(LiveServers.waitUntil(30) { hls.listed.count >= 2 || !recording.isRunning }, recording.said)
        XCTAssertTrue(recording.isRunning, "a participant is present: the recording goes on")
        publisher.stop()
        XCTAssertEqual(recording.exitStatus(within: 40), 0, "ended by --until-empty, not by its 60 s: \(recording.said)")
        XCTAssertTrue(hls.playlist.hasSuffix("#EXT-X-ENDLIST\n"), hls.playlist)
        let packets = try MediaReadBack.packets(try hls.joined(into: folder.file("jo.mp4")))
        XCTAssertEqual(TimestampContinuity.faults(packets, fps: 30), [], "no gap while its publisher was gone")
    }
}
