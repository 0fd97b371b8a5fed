import Foundation
import XCTest

/// Issue 63: each output of `render-stories record`, read back at its far end by ffprobe and
/// ffmpeg: an HLS playlist (sliding window, and EVENT become VOD), MP4 segments named by their
/// UTC start, an RTMP push read back from nginx, an SRT push received by ffmpeg's listener, and
/// all of them at once from one encode.
final class RecordOutputTests: LiveServerTestCase {
    let folder = ScratchFolder()

    /// Records the recorded-participants room with `arguments` and waits for its end (its
    /// `--duration`); the recording, once it has exited 0.
    func record(_ arguments: [String]) throws -> Recording {
        try finish(try start(arguments))
    }

    func start(_ arguments: [String]) throws -> Recording {
        try Recording(try RecordBoards.recordedRoom(in: folder), out: folder.file("rec"), arguments, folder: folder)
    }

    /// Waits for the recording's end at its --duration: it exits 0.
    @discardableResult
    func finish(_ recording: Recording) -> Recording {
        XCTAssertEqual(recording.exitStatus(within: 90), 0, "the recording ends at its --duration: \(recording.said)")
        return recording
    }

    /// A viewer of the push to nginx at `url`, copying it to `file`, started once the push has
    /// (nginx-rtmp sends nothing to a viewer that came before its publisher).
    func readBack(_ url: String, of recording: Recording, into file: String) throws -> ServerProcess {
        XCTAssertTrue(recording.waitFor("output_started", output: url), "\(url): \(recording.events)")
        return try servers.rtmpReader(url, into: file)
    }

    /// The video frames the recorder says it wrote (summary.json's `record.frames`).
    func framesWritten(_ recording: Recording) throws -> Int {
        let record = try XCTUnwrap(recording.record, "summary.json has \"record\": \(recording.summary ?? [:])")
        XCTAssertEqual(record["running"] as? Bool, false, "the final summary says the recording has ended")
        return try XCTUnwrap(record["frames"] as? Int, "record.frames: \(record)")
    }

    // MARK: - HLS

    /// `--hls DIR --hls-window 3`: while it records, the playlist (read over and over, so a
    /// reader would catch one half written) lists the last 3 fMP4 segments after its init
    /// segment, each with its `EXT-X-PROGRAM-DATE-TIME`, the older segments are deleted, and
    /// what it lists plays without a missing or repeated picture.
    func testAnHLSWindowListsTheLastSegmentsEachWithItsTime() throws {
        let hls = HLSFolder(path: folder.file("hls"))
        let board = try RecordBoards.recordedRoom(in: folder)
        let recording = try Recording(board, out: folder.file("rec"), ["--duration", "9", "--hls", hls.path,
                                                                       "--hls-segment", "1", "--hls-window", "3"], folder: folder)
        var reads = 0, torn: [String] = []
        var seenWindow = false, checked = ""
        while recording.isRunning {
            let text = hls.playlist
            if !text.isEmpty {
                reads += 1
                if !text.hasSuffix("\n") || text.split(separator: "\n").last?.hasPrefix("#EXTINF") == true { torn.append(text) }
                let moved = HLSFolder.listed(in: text).count == 3 && HLSFolder.listed(in: text).first != "segment-000000.m4s"
                if moved, text != checked {
                    seenWindow = true
                    checked = text
                    checkWindow(text)
                }
            }
            usleep(20_000)
        }
        XCTAssertEqual(recording.exitStatus(within: 30), 0, recording.said)
        XCTAssertGreaterThan(reads, 50, "the playlist was read while it was written")
        XCTAssertEqual(torn, [], "every read of the playlist was whole (written atomically)")
        XCTAssertTrue(seenWindow, "the window moved on while recording: \(hls.playlist)")
        XCTAssertFalse(hls.segmentFiles.contains("segment-000000.m4s"), "the first segment was deleted")
        XCTAssertLessThanOrEqual(hls.segmentFiles.count, 4, "the window's 3 (and at most the one being written): \(hls.segmentFiles)")
        XCTAssertTrue(hls.listed.allSatisfy { hls.segmentFiles.contains($0) }, "every listed segment is on disk: \(hls.playlist)")
        let joined = try hls.joined(into: folder.file("window.mp4"))
        let packets = try MediaReadBack.packets(joined)
        XCTAssertEqual(TimestampContinuity.faults(packets, fps: 30), [])
        XCTAssertEqual(try MediaReadBack.decodedFrames(joined), packets.count, "ffprobe decodes every picture listed")
        XCTAssertEqual(Double(packets.count), hls.durations.reduce(0, +) * 30, accuracy: 2, "EXTINF says how long each is")
    }

    /// What a player reading the window while it records needs: fMP4 with its init segment, and
    /// each segment's wall-clock time, those times a segment's duration apart.
    private func checkWindow(_ text: String) {
        let hls = HLSFolder(text: text)
        guard !text.contains("#EXT-X-ENDLIST") else { return }
        XCTAssertTrue(text.hasPrefix("#EXTM3U"), text)
        XCTAssertTrue(text.contains(#"#EXT-X-MAP:URI="init.mp4""#), "fMP4 segments after an init segment: \(text)")
        XCTAssertFalse(text.contains("#EXT-X-PLAYLIST-TYPE:EVENT"), "a sliding window is not an EVENT playlist: \(text)")
        let sequence = hls.lines.first { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") }.flatMap { Int($0.dropFirst(22)) }
        XCTAssertGreaterThan(sequence ?? 0, 0, "the media sequence moves with the window: \(text)")
        let times = hls.programDateTimes
        XCTAssertEqual(times.count, hls.listed.count, "EXT-X-PROGRAM-DATE-TIME on every segment: \(text)")
        for (n, pair) in zip(times, times.dropFirst()).enumerated() where n < hls.durations.count {
            XCTAssertEqual(pair.1 - pair.0, hls.durations[n], accuracy: 0.1, "each segment's time is the last one's plus its duration: \(text)")
        }
    }

    /// `--hls-window 0`: an EVENT playlist that keeps every segment while it records, and at the
    /// end of the recording becomes VOD (`EXT-X-ENDLIST`): ffprobe then reads, through the
    /// playlist, every frame the recorder wrote, and its sound.
    func testAnHLSEventPlaylistKeepsEverySegmentAndEndsAsVOD() throws {
        let hls = HLSFolder(path: folder.file("hls"))
        let board = try RecordBoards.recordedRoom(in: folder)
        let recording = try Recording(board, out: folder.file("rec"), ["--duration", "6", "--hls", hls.path,
                                                                       "--hls-segment", "1", "--hls-window", "0"], folder: folder)
        XCTAssertTrue(LiveServers.waitUntil(30) { hls.listed.count >= 2 || !recording.isRunning }, recording.said)
        let during = hls.playlist
        XCTAssertTrue(during.contains("#EXT-X-PLAYLIST-TYPE:EVENT"), during)
        XCTAssertFalse(during.contains("#EXT-X-ENDLIST"), "no end while recording: \(during)")
        XCTAssertEqual(recording.exitStatus(within: 60), 0, recording.said)
        let text = hls.playlist
        XCTAssertTrue(text.hasSuffix("#EXT-X-ENDLIST\n"), "VOD once the recording has ended: \(text)")
        XCTAssertEqual(hls.listed.first, "segment-000000.m4s", "an EVENT playlist keeps its first segment: \(text)")
        XCTAssertEqual(hls.listed, hls.segmentFiles, "every segment written is listed, and nothing else is on disk")
        XCTAssertEqual(hls.programDateTimes.count, hls.listed.count, "EXT-X-PROGRAM-DATE-TIME on every segment: \(text)")
        let frames = try framesWritten(recording)
        XCTAssertEqual(Double(frames), 6 * 30, accuracy: 30, "6 s of 30 fps")
        let playlist = hls.path + "/index.m3u8"
        XCTAssertEqual(try MediaReadBack.decodedFrames(playlist), frames, "ffprobe reads every frame through the playlist")
        XCTAssertEqual(try MediaReadBack.decodingErrors(playlist), "")
        XCTAssertEqual(Set(try MediaReadBack.streams(playlist)), ["h264:video", "aac:audio"])
        let packets = try MediaReadBack.packets(try hls.joined(into: folder.file("event.mp4")))
        XCTAssertEqual(TimestampContinuity.faults(packets, fps: 30), [])
        XCTAssertEqual(segmentClosedFiles(recording, "hls").count, hls.listed.count, "a segment_closed event for each segment")
    }

    /// The `file` of each `segment_closed` event of `output`, as its last path component.
    func segmentClosedFiles(_ recording: Recording, _ output: String) -> [String] {
        recording.events("segment_closed", output: output).compactMap { ($0["file"] as? String).map { ($0 as NSString).lastPathComponent } }
    }
}
