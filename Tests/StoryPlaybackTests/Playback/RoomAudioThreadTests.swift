import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// A room participant's sound is read on a thread of its own (`ParticipantSound`): a server that
/// stalls mid-read holds up that thread, not the frames, and a stall past the read timeout or a
/// broken connection is a traced failure of that participant while the room goes on.
final class RoomAudioThreadTests: LiveServerTestCase {
    var folder: ScratchFolder!

    /// Seconds of sound the server sends before it stalls (or breaks off): more than the WAV
    /// demuxer reads while it opens (it probes 128 KiB of samples), so the stall comes mid-read.
    static let sentSeconds = 2.0

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = ScratchFolder()
        // A tone for the local participant, and 6 s of another for the served one: WAV, so the
        // first seconds of bytes are the first seconds of sound (a header, then samples).
        try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=6", "-ac", "2", folder.file("ana.wav")])
        try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000:duration=6", "-ac", "2", folder.file("dee.wav")])
    }

    override func tearDown() {
        super.tearDown()
        folder = nil
    }

    func ffmpeg(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try XCTUnwrap(LiveServers.which("ffmpeg")))
        process.arguments = ["-v", "error", "-y"] + arguments
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "ffmpeg \(arguments)")
    }

    /// An HTTP server on 127.0.0.1 that answers every request for `file` with its full length,
    /// sends the header and `sentSeconds` of sound, then either stops sending and holds the
    /// connection open (`breaks` false: a stalled participant) or closes it (a broken one).
    /// Returns the file's URL.
    func partialServer(_ file: String, breaks: Bool, seconds: Double = RoomAudioThreadTests.sentSeconds) throws -> String {
        let port = LiveServers.freePort()
        let sent = 44 + Int(seconds * 48_000) * 4
        let script = """
        import socket, threading, time
        data = open("\(folder.file(file))", "rb").read()
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", \(port))); s.listen(16); held = []
        def serve(c):
            request = b""
            while b"\\r\\n\\r\\n" not in request:
                chunk = c.recv(4096)
                if not chunk: return
                request += chunk
            c.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Type: audio/wav\\r\\nContent-Length: %d\\r\\n\\r\\n" % len(data))
            c.sendall(data[:\(sent)])
            if \(breaks ? "True" : "False"): c.close()
            else: held.append(c)
        while True:
            c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
        """
        let server = try servers.start("python3", ["-c", script], name: "partial-\(port)")
        guard LiveServers.waitUntil(10, { LiveServers.accepts(port: port) }) else {
            throw LiveServers.unavailable("the partial HTTP server did not start: \(server.output)")
        }
        return "http://127.0.0.1:\(port)/\(file)"
    }

    /// Frames per second: 5, so a frame is late only 200 ms after its moment and a loaded
    /// machine (two cores shared with other builds) does not pass for a stalled render.
    static let fps = 5.0

    /// Frames skipped as late that a realtime render on a loaded machine may have anyway; a
    /// render held up by a stall misses every frame for as long as the stall lasts.
    static let lateAllowed = 1

    func roomBoard(_ url: String, clock: String, duration: Double = 4, read: Double = 1, open: Double = 8) throws -> Storyboard {
        try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": \(RoomAudioThreadTests.fps)}, "duration": \(duration), "clock": "\(clock)",
         "timeouts": {"open": \(open), "read": \(read)},
         "stories": [{"id": "panel", "room": {"participants": [{"id": "ana", "uri": "ana.wav"}, {"id": "dee", "uri": "\(url)"}]},
                      "duration": 20}]}
        """, folder: folder.path)
    }

    // MARK: - Realtime

    /// The served participant stalls after a second of sound; with the realtime clock every
    /// frame is still drawn on time (none late, none skipped) while the stall lasts, and when it
    /// passes the read timeout the participant is traced as failed; the room goes on.
    func testAStalledParticipantDoesNotHoldUpTheFrames() throws {
        let url = try partialServer("dee.wav", breaks: false)
        let started = Date()
        let (summary, events, _) = try render(try roomBoard(url, clock: "realtime"))
        let took = Date().timeIntervalSince(started)
        XCTAssertLessThanOrEqual(summary.lateFrames.count, RoomAudioThreadTests.lateAllowed,
                                 "frames drawn late while dee stalled: \(summary.lateFrames) \(events.map(\.jsonLine))")
        XCTAssertEqual(summary.frames + summary.lateFrames.count, 20)
        XCTAssertLessThan(took, 6, "the render kept to its 4 s")
        let failed = try XCTUnwrap(events.of(.failed).first, "\(events.map(\.jsonLine))")
        XCTAssertEqual(failed.participant, "dee")
        XCTAssertEqual(failed.media, "audio")
        XCTAssertTrue(failed.error?.contains("no data for 1 s") ?? false, "\(failed.jsonLine)")
        // The thread reads ahead of the room by its queue (about 1.4 s), so it meets the stall
        // before the room's sound runs out, and gives up a read timeout later.
        XCTAssertGreaterThanOrEqual(failed.t, 1, "\(failed.jsonLine)")
        XCTAssertLessThan(failed.t, RoomAudioThreadTests.sentSeconds + 1.5, "\(failed.jsonLine)")
        XCTAssertEqual(summary.failedParticipants.map(\.participant), ["dee"])
        XCTAssertEqual(events.of(.failed).count, 1)
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [])
        XCTAssertTrue(LiveServers.waitUntil(2) { FormatContext.alive.load(ordering: .acquiring) == 0 },
                      "the participant's thread freed its demuxer")
    }

    /// A connection that breaks off before the file's length is a read error: the participant
    /// fails (it used to pass for the end of its sound).
    func testABrokenConnectionIsAFailureNotTheEnd() throws {
        let url = try partialServer("dee.wav", breaks: true)
        let (summary, events, _) = try render(try roomBoard(url, clock: "realtime", read: 5))
        let failed = try XCTUnwrap(events.of(.failed).first, "\(events.map(\.jsonLine))")
        XCTAssertEqual(failed.participant, "dee")
        XCTAssertEqual(failed.media, "audio")
        XCTAssertEqual(summary.failedParticipants.map(\.participant), ["dee"])
    }

    /// A server that stalls while the participant is still being opened (before the WAV
    /// demuxer has read what it probes) holds up the participant's thread, not the frames: with
    /// the realtime clock the room does not wait for its participants to open.
    func testAParticipantStalledWhileOpeningDoesNotHoldUpTheFrames() throws {
        let url = try partialServer("dee.wav", breaks: false, seconds: 0.2)
        // The probe and the audio's own open each wait out the open timeout (FFmpeg then goes on
        // with what it read), and the first read past the sent sound the read timeout: about 3 s.
        let (summary, events, _) = try render(try roomBoard(url, clock: "realtime", duration: 4, read: 1, open: 1))
        XCTAssertLessThanOrEqual(summary.lateFrames.count, RoomAudioThreadTests.lateAllowed,
                                 "frames drawn late while dee was opening: \(summary.lateFrames) \(events.map(\.jsonLine))")
        XCTAssertEqual(summary.frames + summary.lateFrames.count, 20)
        XCTAssertEqual(summary.failedParticipants.map(\.participant), ["dee"], "\(events.map(\.jsonLine))")
    }

    // MARK: - Virtual clock

    /// With the virtual clock the room waits for the sound it measures, so the stall is met where
    /// the sent sound ends, whatever the machine's speed: the failure is traced at the first
    /// window past it, and the speaker decisions before it are those of every run.
    func testTheVirtualClockWaitsForTheSoundAndFailsWhereItEnds() throws {
        let url = try partialServer("dee.wav", breaks: false)
        let first = try render(try roomBoard(url, clock: "virtual", duration: 3))
        let failed = try XCTUnwrap(first.trace.of(.failed).first, "\(first.trace.map(\.jsonLine))")
        XCTAssertEqual(failed.participant, "dee")
        XCTAssertGreaterThanOrEqual(failed.t, RoomAudioThreadTests.sentSeconds - 1e-9, "\(failed.jsonLine)")
        XCTAssertLessThanOrEqual(failed.t, RoomAudioThreadTests.sentSeconds + 0.4 + 1e-9, "\(failed.jsonLine)")
        XCTAssertEqual(first.summary.frames, 15)
        let second = try render(try roomBoard(url, clock: "virtual", duration: 3))
        XCTAssertEqual(second.trace.of(.failed).map(\.t), first.trace.of(.failed).map(\.t))
        let decisions = { (trace: [TraceEvent]) in trace.of(.speaker).map { "\($0.t) \($0.participant ?? "")" } }
        XCTAssertEqual(decisions(second.trace), decisions(first.trace))
    }
}
