import Compositor
import Foundation
import Synchronization
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

// MARK: - A reopened playlist is not played again

extension LiveClockTests {
    /// The first place, if any, where a frame shows a picture older than one shown before it:
    /// what a viewer sees as the stream playing backwards.
    static func firstStepBack(_ reading: ClockCode.Reading) -> String? {
        var newest: (frame: Int, number: Int)?
        for (frame, code) in reading.codes.enumerated() {
            guard let number = code?.number else { continue }
            if let newest, number < newest.number {
                return "frame \(frame) shows picture \(number), after frame \(newest.frame) showed \(newest.number)"
            }
            if number > newest?.number ?? -1 { newest = (frame, number) }
        }
        return nil
    }

    /// A live playlist that stops changing without `#EXT-X-ENDLIST` (a publisher gone, a
    /// server that stopped writing it): each reconnect's demuxer starts three segments from its
    /// end again, pictures the viewer saw seconds before. They used to play again, backwards in
    /// time, once per reconnect (pictures 150-237 three times over); the last picture must stay
    /// until the item fails. Clock-coded segments written ahead, so the virtual clock's frames
    /// are the same on every run.
    func testAStalledPlaylistIsNotPlayedAgainAfterAReconnect() throws {
        let url = try clockCodedPlaylist(seconds: 4, folder: "stalled", finished: false)

        let board = try board(url, clock: .virtual, seconds: 8, extra: #", "timeouts": {"open": 4, "read": 1, "retries": 2}"#)
        let (_, events, output) = try render(board, threads: 1)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output.file("summary.json")))) as? [String: Any])
        let reading = try ClockCode.read(folder: output.path, summary: summary)
        XCTAssertGreaterThanOrEqual(events.of(.reconnect).count, 1, "\(events.map(\.jsonLine))")
        XCTAssertNil(Self.firstStepBack(reading), reading.diagnosis)
        XCTAssertGreaterThan(Set(reading.codes.compactMap { $0?.number }).count, 60, "the segments play once: \(reading.diagnosis)")
        XCTAssertEqual(events.of(.failed).count, 1, "the item fails once its reconnects find nothing new: \(events.map(\.jsonLine))")
        XCTAssertEqual(events.of(.discontinuity), [], "no connection after the first brought a picture")
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [])
    }

    /// A publisher that pauses for 4 s (its process stopped, as a phone's app in the
    /// background is) while the viewer's read timeout is 1.5 s: the viewer reconnects, and the
    /// new connection's demuxer starts at segments written before the pause. It jumped back 2 s
    /// at the return; it must go on from the last picture shown to the publisher's new ones.
    func testAPublisherThatPausesGoesOnFromWhereItWas() throws {
        try LiveServers.require("ffmpeg", "python3")
        let folder = servers.folder.file("paused")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let publisher = try servers.publishClockCoded(.ffmpeg, to: .hls(folder: folder))
        let url = try servers.httpServer(root: folder) + "/live.m3u8"
        try waitUntilPlayable(url, publisher: publisher)
        // Foundation starts the shell as the leader of a process group: the generator and the
        // encoder pause and go on with it.
        let group = -publisher.process.processIdentifier
        defer { kill(group, SIGCONT) }
        let resumedAt = Mutex<Double?>(nil)
        DispatchQueue.global().asyncAfter(deadline: .now() + 3) {
            kill(group, SIGSTOP)
            DispatchQueue.global().asyncAfter(deadline: .now() + 4) {
                kill(group, SIGCONT)
                resumedAt.withLock { $0 = Date().timeIntervalSince1970 }
            }
        }
        let board = try board(url, clock: .realtime, seconds: 14, extra: #", "timeouts": {"open": 4, "read": 1.5, "retries": 6}"#)
        let (reading, _, events) = try watch(board)
        XCTAssertGreaterThanOrEqual(events.of(.reconnect).count, 1, "the pause outlasts the read timeout: \(events.map(\.jsonLine))")
        XCTAssertNil(Self.firstStepBack(reading), reading.diagnosis)
        let resumed = try XCTUnwrap(resumedAt.withLock { $0 }, "the publisher was resumed")
        let startedAt = try XCTUnwrap(reading.startedAt, "a realtime render's summary has clock_started_at")
        let after = reading.codes.enumerated().filter { n, code in code.map { reading.made($0, frame: n, startedAt: startedAt) > resumed } ?? false }
        XCTAssertGreaterThan(after.count, 30, "pictures made after the pause reach the screen: \(reading.diagnosis)")
        for jump in events.of(.discontinuity) {
            let times = (jump.detail ?? "").split(separator: " ").compactMap { Double($0) }
            XCTAssertEqual(times.count, 2, jump.detail ?? "")
            XCTAssertGreaterThanOrEqual((times.last ?? 0) - (times.first ?? 0), 0,
                                        "said in the publisher's timestamps, which go on: \(jump.detail ?? "")")
        }
    }
}
