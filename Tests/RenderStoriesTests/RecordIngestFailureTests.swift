import Foundation
import XCTest

/// Issue 63: a push whose ingest refuses, comes late, never answers or stalls mid-stream is
/// traced (`output_lost`, `output_back`, `push_dropped` with its milliseconds), retried, and
/// dropped from its bounded queue, while the render and the other outputs go on: the HLS beside
/// it keeps every frame, without a gap.
final class RecordIngestFailureTests: LiveServerTestCase {
    let folder = ScratchFolder()

    /// Starts recording the recorded-participants room at `size` with an EVENT playlist beside
    /// `arguments`, for at most `seconds`.
    func startRecording(_ arguments: [String], seconds: Int = 60, size: String = "180x320") throws -> (Recording, HLSFolder) {
        let hls = HLSFolder(path: folder.file("hls"))
        let board = try RecordBoards.recordedRoom(in: folder)
        let recording = try Recording(board, out: folder.file("rec"), ["--size", size, "--duration", String(seconds),
                                                                       "--hls", hls.path, "--hls-window", "0"] + arguments,
                                      folder: folder)
        return (recording, hls)
    }

    /// Stops the recording with SIGTERM (exit 0), then checks the HLS beside the failed push
    /// went on unbroken: every frame written, none missing or repeated.
    func stopAndCheckTheOtherOutput(_ recording: Recording, _ hls: HLSFolder) throws {
        recording.signal(SIGTERM)
        XCTAssertEqual(recording.exitStatus(within: 30), 0, "a clean stop, whatever the push's ingest does: \(recording.said)")
        let frames = try XCTUnwrap(recording.record?["frames"] as? Int, "\(recording.summary ?? [:])")
        let packets = try MediaReadBack.packets(try hls.joined(into: folder.file("hls.mp4")))
        XCTAssertEqual(packets.count, frames, "the HLS has every frame written")
        XCTAssertEqual(TimestampContinuity.faults(packets, fps: 30), [], "the HLS went on unbroken")
        XCTAssertTrue(hls.playlist.hasSuffix("#EXT-X-ENDLIST\n"), hls.playlist)
    }

    /// The summary's figures for one output.
    func outputFigures(_ recording: Recording, _ output: String) throws -> [String: Any] {
        let outputs = try XCTUnwrap(recording.record?["outputs"] as? [[String: Any]], "\(recording.summary ?? [:])")
        return try XCTUnwrap(outputs.first { $0["output"] as? String == output }, "\(output) in \(outputs)")
    }

    /// A push to a port nothing listens on is lost (with its error), retried, and back once nginx
    /// starts there; what could not be sent meanwhile was dropped and traced in milliseconds;
    /// nginx's viewer then reads a clean stream; the HLS beside it never noticed.
    func testAPushToAnIngestThatStartsLateIsLostThenBack() throws {
        try LiveServers.require("nginx")
        let port = LiveServers.freePort()
        let url = "rtmp://127.0.0.1:\(port)/live/late"
        let (recording, hls) = try startRecording(["--push", url])
        XCTAssertTrue(recording.waitFor("output_lost", output: url), "the refused push is lost: \(recording.events)")
        let lost = try XCTUnwrap(recording.events("output_lost", output: url).first)
        XCTAssertFalse((lost["error"] as? String ?? "").isEmpty, "output_lost says why: \(lost)")
        XCTAssertTrue(recording.waitFor("push_dropped", output: url), "2 s of queue, then dropped: \(recording.events)")
        _ = try servers.rtmpServer(port: port)
        XCTAssertTrue(recording.waitFor("output_back", output: url, seconds: 20), "retried until nginx took it: \(recording.events)")
        let flv = servers.folder.file("late.flv")
        let reader = try servers.rtmpReader(url, into: flv)
        let segmentsBefore = hls.listed.count
        XCTAssertTrue(LiveServers.waitUntil(30) { hls.listed.count >= segmentsBefore + 3 || !recording.isRunning })
        let dropped = recording.events("push_dropped", output: url).compactMap { ($0["ms"] as? NSNumber)?.doubleValue }
        XCTAssertGreaterThan(dropped.reduce(0, +), 0, "push_dropped says how many milliseconds: \(recording.events("push_dropped"))")
        let names = recording.events.compactMap { event -> String? in
            guard event["output"] as? String == url else { return nil }
            return event["event"] as? String
        }
        XCTAssertEqual(names.first, "output_lost", "lost before anything was sent: \(names)")
        XCTAssertEqual(names.last { $0 != "push_dropped" }, "output_back", "and back at last: \(names)")
        try stopAndCheckTheOtherOutput(recording, hls)
        XCTAssertTrue(reader.waitForExit(20), "nginx's viewer ends 3 s after the stream: \(reader.output)")
        reader.stop()
        XCTAssertEqual(try MediaReadBack.decodingErrors(flv), "", "what reached nginx after the return is a clean stream")
        XCTAssertEqual(TimestampContinuity.faults(try MediaReadBack.packets(flv), fps: 30), [])
        XCTAssertGreaterThan(try outputFigures(recording, url)["dropped_ms"] as? Double ?? 0, 0)
    }

    /// An ingest that accepts the connection and never answers (nor reads): the push is traced
    /// and what it cannot send dropped, the render is not held up (the HLS beside it gets every
    /// frame), and the recording still stops cleanly on SIGTERM.
    func testAnIngestThatNeverAnswersHoldsNothingUp() throws {
        let url = "rtmp://127.0.0.1:\(try servers.stallingServer())/live/never"
        let (recording, hls) = try startRecording(["--push", url])
        XCTAssertTrue(recording.waitFor("push_dropped", output: url), "the queue's 2 s, then dropped: \(recording.events)")
        let segmentsBefore = hls.listed.count
        XCTAssertTrue(LiveServers.waitUntil(30) { hls.listed.count >= segmentsBefore + 2 || !recording.isRunning },
                      "segments keep coming while the push is stuck")
        try stopAndCheckTheOtherOutput(recording, hls)
        let dropped = recording.events("push_dropped", output: url).compactMap { ($0["ms"] as? NSNumber)?.doubleValue }
        XCTAssertGreaterThan(dropped.reduce(0, +), 1000, "more than a second of it dropped: \(recording.events("push_dropped"))")
        XCTAssertEqual(recording.events("output_back", output: url).count, 0, "it never got through")
    }

    /// An ingest that takes the stream, then stops reading mid-stream (a relay to nginx that
    /// stops after 2 s): once the kernel's buffers are full (Linux lets a sender's grow to 4 MB,
    /// so the picture is lossless, `--crf 0` at 360x640: about 340 KB a second, full in some
    /// 12 s), the push is traced lost, its packets dropped, the render goes on, and it stops cleanly.
    func testAnIngestThatStallsMidStreamIsDroppedAndTheRenderGoesOn() throws {
        try LiveServers.require("nginx")
        let relay = try servers.stallingRelay(to: try servers.rtmpServer(), after: 2)
        let url = "rtmp://127.0.0.1:\(relay)/live/stalls"
        let (recording, hls) = try startRecording(["--push", url, "--crf", "0"], size: "360x640")
        XCTAssertTrue(recording.waitFor("output_started", output: url), "it got through at first: \(recording.events)")
        XCTAssertTrue(recording.waitFor("push_dropped", output: url, seconds: 60), "then stalled, and dropped: \(recording.events)")
        XCTAssertTrue(recording.waitFor("output_lost", output: url), "the stall is traced as a lost output: \(recording.events)")
        let segmentsBefore = hls.listed.count
        XCTAssertTrue(LiveServers.waitUntil(30) { hls.listed.count >= segmentsBefore + 2 || !recording.isRunning },
                      "segments keep coming while the push is stuck")
        try stopAndCheckTheOtherOutput(recording, hls)
        let dropped = recording.events("push_dropped", output: url).compactMap { ($0["ms"] as? NSNumber)?.doubleValue }
        XCTAssertGreaterThan(dropped.reduce(0, +), 0, "\(recording.events("push_dropped"))")
    }
}
