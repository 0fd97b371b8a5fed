import Foundation
import XCTest

extension RecordStopTests {
    /// `kill -9` mid-segment, after summary.json has been rewritten while recording (every
    /// 10 s, with the running figures): every closed segment plays whole, the open one plays up
    /// to at most 1 s before the kill, and the HLS playlist names only whole segments.
    func testAKillMidSegmentLosesAtMostTheLastSecond() throws {
        let hls = HLSFolder(path: folder.file("hls")), segments = folder.file("segments")
        let launched = Date().timeIntervalSince1970
        let recording = try start(["--hls", hls.path, "--hls-segment", "1", "--hls-window", "0",
                                   "--segments", segments, "--segment-time", "5"])
        // Written at the first frame, then every 10 s: the rewrite has the running figures.
        XCTAssertTrue(LiveServers.waitUntil(20) { (recording.record?["frames"] as? Int ?? 0) > 30 || !recording.isRunning }, recording.said)
        let summaryAfter = Date().timeIntervalSince1970 - launched
        XCTAssertLessThan(summaryAfter, 13, "summary.json is rewritten 10 s into the recording (and its start)")
        try checkRunningSummary(try XCTUnwrap(recording.record, "summary.json while recording: \(recording.said)"))
        let clockStartedAt = try XCTUnwrap(recording.summary?["clock_started_at"] as? Double, "the running summary says when frame 0 was due")
        // When the first frame was due: the first segment's EXT-X-PROGRAM-DATE-TIME, which is
        // the running summary's clock_started_at (which it lacked before this test).
        let startedAt = try XCTUnwrap(hls.programDateTimes.first, "the first segment's time: \(hls.playlist)")
        XCTAssertEqual(startedAt, clockStartedAt, accuracy: 0.01, "the playlist's first time is the clock's start")
        // Mid-segment: 2 to 3.5 s into a 5 s period of UTC, after a segment has been closed.
        XCTAssertTrue(recording.waitFor("segment_closed", output: "segments"), "\(recording.events)")
        XCTAssertTrue(LiveServers.waitUntil(10) { (2.0...3.5).contains(Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 5)) })
        let killedAt = Date().timeIntervalSince1970
        recording.signal(SIGKILL)
        XCTAssertEqual(recording.exitStatus(within: 10), SIGKILL, "killed")

        let closed = recording.events("segment_closed", output: "segments")
            .compactMap { ($0["file"] as? String).map { ($0 as NSString).lastPathComponent } }
        let files = segmentFiles(segments)
        XCTAssertEqual(Array(files.prefix(closed.count)), closed, "the closed segments, then the one being written")
        XCTAssertEqual(files.count, closed.count + 1, "\(files), closed \(closed)")
        var readable = 0
        for file in files {
            let path = segments + "/" + file
            let frames = try MediaReadBack.decodedFrames(path)
            if closed.contains(file) {
                XCTAssertEqual(try MediaReadBack.decodingErrors(path), "", "closed segment \(file) plays whole")
                XCTAssertEqual(frames, try MediaReadBack.packets(path).count, file)
            }
            readable += frames
        }
        let lost = killedAt - startedAt - Double(readable) / 30
        // Fragments of at most 1 s, flushed: at most that second is lost, and the two frames the
        // realtime clock had due but still drawing or encoding when the kill came.
        XCTAssertLessThanOrEqual(lost, 1 + 2.0 / 30, "\(readable) frames readable of \(killedAt - startedAt) s recorded")
        XCTAssertGreaterThan(lost, -0.5, "no more frames than the clock had due: \(readable)")
        try checkPlaylistAfterAKill(hls)
    }

    /// After a kill the playlist names only whole segments: each listed one is on disk and
    /// plays (after the init segment) for its EXTINF; it has no end, since none was written.
    func checkPlaylistAfterAKill(_ hls: HLSFolder) throws {
        let text = hls.playlist
        XCTAssertFalse(text.contains("#EXT-X-ENDLIST"), text)
        XCTAssertGreaterThanOrEqual(hls.listed.count, 8, text)
        for (segment, duration) in zip(hls.listed, hls.durations) {
            let joined = try MediaReadBack.joined(init: hls.path + "/init.mp4", segments: [hls.path + "/" + segment],
                                                  into: folder.file("after-kill.mp4"))
            XCTAssertEqual(try MediaReadBack.decodingErrors(joined), "", "\(segment) plays whole")
            XCTAssertEqual(Double(try MediaReadBack.decodedFrames(joined)), duration * 30, accuracy: 1, "\(segment): its EXTINF")
        }
    }

    /// summary.json while recording: running, with its frames, each output's state and bytes,
    /// each participant's state, and the process's CPU time, memory, threads and descriptors.
    func checkRunningSummary(_ record: [String: Any]) throws {
        XCTAssertEqual(record["running"] as? Bool, true, "\(record)")
        XCTAssertGreaterThan(record["frames"] as? Int ?? 0, 0, "\(record)")
        XCTAssertNotNil(record["late_frames"], "\(record)")
        XCTAssertGreaterThan((record["seconds"] as? NSNumber)?.doubleValue ?? 0, 0, "\(record)")
        let outputs = try XCTUnwrap(record["outputs"] as? [[String: Any]], "\(record)")
        XCTAssertEqual(Set(outputs.compactMap { $0["output"] as? String }), ["hls", "segments"], "\(outputs)")
        for output in outputs {
            XCTAssertEqual(output["state"] as? String, "running", "\(output)")
            XCTAssertGreaterThan((output["bytes"] as? NSNumber)?.intValue ?? 0, 0, "\(output)")
            XCTAssertNotNil(output["dropped_ms"], "\(output)")
        }
        let participants = try XCTUnwrap(record["participants"] as? [[String: Any]], "\(record)")
        XCTAssertEqual(Set(participants.compactMap { $0["participant"] as? String }), ["ana", "ben"], "\(participants)")
        XCTAssertTrue(participants.allSatisfy { $0["state"] is String && $0["story"] as? String == "panel" }, "\(participants)")
        for key in ["cpu_seconds", "rss_mb", "threads", "fds"] {
            XCTAssertGreaterThan((record[key] as? NSNumber)?.doubleValue ?? 0, 0, "\(key): \(record)")
        }
    }
}
