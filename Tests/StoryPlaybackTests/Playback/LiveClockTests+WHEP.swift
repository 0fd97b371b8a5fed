import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

// MARK: - WebRTC through WHEP

extension LiveClockTests {
    /// The longest run of frames that show one picture (a freeze), in frames.
    private func longestHold(_ reading: ClockCode.Reading) -> Int {
        var longest = 0, run = 0, previous: Int?
        for code in reading.codes {
            run = code?.number != nil && code?.number == previous ? run + 1 : 1
            previous = code?.number
            longest = max(longest, run)
        }
        return longest
    }

    /// A WHEP endpoint plays as any pushed live source does, a few frames behind its sender: the
    /// offer posted, ICE and DTLS on loopback, H.264 and Opus through the jitter buffer. The
    /// trace says `whep`, the target and the jitter buffer's depth.
    func testWHEPPlaysAFewFramesBehindItsSender() throws {
        let peer = try servers.whepPeer()
        for clock in PlaybackClock.allCases {
            let (reading, stop, events) = try watch(board(peer.url, clock: clock, seconds: clock == .realtime ? 8 : 4))
            XCTAssertGreaterThanOrEqual(reading.distinctPerSecond, LiveClockTests.smooth(clock), "\(clock): \(reading.diagnosis)")
            XCTAssertEqual(events.of(.opened).first?.protocolName, "whep")
            XCTAssertEqual(stop.protocolName, "whep")
            XCTAssertNotNil(stop.jitterBufferMs, "the jitter buffer's depth is traced")
            guard clock == .realtime else { continue }
            let latency = try XCTUnwrap(reading.latencyP50)
            // RTMP's and SRT's rows are 90-300 ms; the bench's target for WHEP is 250 ms.
            XCTAssertLessThan(latency, 450 * LiveClockTests.slack, "pictures a few frames old: \(reading.diagnosis)")
        }
        XCTAssertFalse(peer.events("delete").isEmpty, "each session is deleted from the server as its play ends")
    }

    /// 2 % of the video packets lost on the way: the receiver asks for each again (NACK), and
    /// the picture never freezes for half a second.
    func testWHEPRecoversFromLostPacketsWithoutFreezing() throws {
        let peer = try servers.whepPeer(["--drop", "0.02", "--seed", "7"])
        let (reading, _, _) = try watch(board(peer.url, clock: .realtime, seconds: 8))
        XCTAssertGreaterThanOrEqual(reading.distinctPerSecond, LiveClockTests.underSanitizer ? 12 : 25, reading.diagnosis)
        XCTAssertLessThanOrEqual(longestHold(reading), LiveClockTests.underSanitizer ? 45 : 15, "no freeze of 500 ms: \(reading.diagnosis)")
        XCTAssertFalse(peer.events("drop").isEmpty, "the peer dropped packets")
        XCTAssertFalse(peer.events("nack").isEmpty, "the receiver asked for the lost packets again")
    }

    /// Without retransmission a loss is repaired by a keyframe the receiver asks for (PLI).
    func testWHEPAsksForAKeyframeWhenALossCannotBeRepaired() throws {
        let peer = try servers.whepPeer(["--drop", "0.02", "--seed", "7", "--no-retransmit"])
        let (reading, _, _) = try watch(board(peer.url, clock: .virtual, seconds: 4))
        XCTAssertGreaterThan(Set(reading.codes.compactMap { $0?.number }).count, 60, reading.diagnosis)
        XCTAssertFalse(peer.events("pli").isEmpty, "a keyframe asked for (PLI)")
    }

    /// The failures of a WebRTC source are failed stories with their cause, and the render goes
    /// on to the next story: an endpoint that refuses the offer, ICE that never connects, media
    /// that stops.
    func testWHEPFailuresAreFailedStoriesWithTheirCause() throws {
        let refusing = try servers.whepPeer(["--status", "503"])
        let unreachable = try servers.whepPeer(["--no-ice"])
        let stopping = try servers.whepPeer(["--stop-after", "1.5"])
        let after = try servers.whepPeer()
        let board = try Storyboard.parse("""
            {"canvas": {"width": 360, "height": 640, "fps": 30}, "duration": 16, "clock": "virtual",
             "timeouts": {"open": 3, "read": 1.5, "retries": 0},
             "stories": [{"id": "refusing", "items": [{"uri": "\(refusing.url)", "duration": 2}]},
                         {"id": "unreachable", "items": [{"uri": "\(unreachable.url)", "duration": 4}]},
                         {"id": "stopping", "items": [{"uri": "http://127.0.0.1:\(stopping.port)/whep", "protocol": "whep", "duration": 6}]},
                         {"id": "after", "items": [{"uri": "\(after.url)", "duration": 3}]}]}
            """, folder: servers.folder.path)
        let (_, events, _) = try render(board, threads: 1)
        let failed = Dictionary(events.of(.failed).map { ($0.story, $0.error ?? "") }, uniquingKeysWith: { first, _ in first })
        XCTAssertTrue(failed["refusing"]?.contains("did not take the offer") == true, "\(failed)")
        XCTAssertTrue(failed["refusing"]?.contains("5XX") == true || failed["refusing"]?.contains("503") == true, "the server's answer: \(failed)")
        XCTAssertNotNil(failed["unreachable"], "ICE that never connects fails its story: \(events.map(\.jsonLine))")
        XCTAssertNotNil(failed["stopping"], "media that stops fails its story (retries 0): \(events.map(\.jsonLine))")
        XCTAssertNil(failed["after"], "the render goes on: \(failed)")
        XCTAssertGreaterThan(events.of(.stop).first { $0.story == "after" }?.pictures ?? 0, 30, "the story after them plays")
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [])
    }

    /// `"protocol": "whep"` needs an http(s) endpoint: anything else is a storyboard error at
    /// that key, before any frame.
    func testWHEPOnAURLThatIsNoHTTPEndpointIsAStoryboardError() {
        XCTAssertThrowsError(try Storyboard.parse("""
            {"stories": [{"id": "s", "items": [{"uri": "rtmp://127.0.0.1/live/x", "protocol": "whep"}]}]}
            """, folder: "/")) { error in
            XCTAssertEqual((error as? StoryboardError)?.path, "stories[0].items[0].protocol", "\(error)")
        }
    }

    /// A room takes WHEP participants like any other live source: `whep://`, or `"protocol":
    /// "whep"` on an http endpoint. Each is seen when large (ana as the first speaker, ben once
    /// pinned) and heard (its sound thread plays a session of its own), and nothing fails.
    func testARoomTakesWHEPParticipants() throws {
        let ana = try servers.whepPeer()
        let ben = try servers.whepPeer()
        let board = try Storyboard.parse("""
            {"canvas": {"width": 360, "height": 640, "fps": 30}, "duration": 5,
             "script": [{"at": 2, "action": "pin", "participant": "ben"}],
             "stories": [{"id": "call", "room": {"participants": [
               {"id": "ana", "uri": "\(ana.url)"},
               {"id": "ben", "uri": "http://127.0.0.1:\(ben.port)/whep", "protocol": "whep"}]}}]}
            """, folder: servers.folder.path)
        let (_, events, _) = try render(board, threads: 1)
        XCTAssertEqual(events.of(.failed).map(\.jsonLine), [])
        for participant in ["ana", "ben"] {
            let video = events.of(.stop).filter { $0.participant == participant && $0.media == nil }
            XCTAssertGreaterThan(video.map { $0.pictures ?? 0 }.max() ?? 0, 30, "\(participant) is seen: \(events.map(\.jsonLine))")
            XCTAssertFalse(events.of(.play).filter { $0.participant == participant && $0.media == "audio" }.isEmpty, "\(participant) is heard")
        }
        XCTAssertGreaterThanOrEqual(ana.events("post").count, 2, "a session for the pictures and one for the sound")
    }
}
