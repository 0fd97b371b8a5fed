import StoryBase
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

final class TraceCheckTests: XCTestCase {
    func line(_ event: String, _ player: Int, story: String = "a") -> String {
        #"{"t": 0, "wall": 0, "event": "\#(event)", "story": "\#(story)", "item": 0, "player": \#(player)}"#
    }

    func testAGoodTracePasses() {
        let trace = [line("play", 1), line("opened", 1), line("firstFrame", 1), line("play", 2, story: "b"),
                     line("stop", 1), #"{"t": 1, "wall": 0, "event": "ignored", "story": "a", "call": "stop"}"#,
                     line("ended", 2, story: "b"), line("stop", 2, story: "b")].joined(separator: "\n")
        XCTAssertEqual(TraceCheck.check(trace), [])
    }

    func testReusedIdIsAViolation() {
        let v = TraceCheck.check([line("play", 1), line("stop", 1), line("play", 1), line("stop", 1)].joined(separator: "\n"))
        XCTAssertTrue(v.contains { $0.line == 3 && $0.message.contains("player 1 reused") }, "\(v)")
    }

    func testEveryPlayNeedsExactlyOneStop() {
        let never = TraceCheck.check(line("play", 4))
        XCTAssertEqual(never.map(\.message), ["player 4 (a) played but never stopped"])
        let twice = TraceCheck.check([line("play", 1), line("stop", 1), line("stop", 1)].joined(separator: "\n"))
        XCTAssertTrue(twice.contains { $0.line == 3 && $0.message.contains("stopped again") }, "\(twice)")
        let orphan = TraceCheck.check(line("stop", 9))
        XCTAssertTrue(orphan.contains { $0.message.contains("never played") })
    }

    /// Found by an audit: a hand-edited `stop` that named another story than its player's
    /// `play`, or came before it on the timeline, passed.
    func testAPlayersEventsAreItsOwnAndComeAfterItsPlay() {
        let otherStory = TraceCheck.check([line("play", 1), line("stop", 1, story: "b")].joined(separator: "\n"))
        XCTAssertEqual(otherStory.map(\.line), [2], "\(otherStory)")
        XCTAssertTrue(otherStory.first?.message.contains("names story b, its play at line 1 story a") ?? false, "\(otherStory)")
        let otherItem = TraceCheck.check([line("play", 1), line("firstFrame", 1).replacingOccurrences(of: #""item": 0"#, with: #""item": 2"#),
                                          line("stop", 1)].joined(separator: "\n"))
        XCTAssertEqual(otherItem.map(\.line), [2], "\(otherItem)")
        let early = TraceCheck.check([line("play", 1).replacingOccurrences(of: #""t": 0"#, with: #""t": 1"#),
                                      line("stop", 1).replacingOccurrences(of: #""t": 0"#, with: #""t": 0.2"#)].joined(separator: "\n"))
        XCTAssertEqual(early.map(\.line), [2], "\(early)")
        XCTAssertTrue(early.first?.message.contains("before its play at t=1.0") ?? false, "\(early)")
        let participant = TraceCheck.check([line("play", 1).replacingOccurrences(of: "}", with: #", "participant": "ana"}"#),
                                            line("stop", 1).replacingOccurrences(of: "}", with: #", "participant": "ben"}"#)]
            .joined(separator: "\n"))
        XCTAssertEqual(participant.map(\.line), [2], "\(participant)")
    }

    func testNoEventsAfterStop() {
        let v = TraceCheck.check([line("play", 1), line("stop", 1), line("firstFrame", 1)].joined(separator: "\n"))
        XCTAssertEqual(v.map(\.line), [3])
        XCTAssertTrue(v[0].message.contains("after its stop"))
    }

    func testTooManyAlive() {
        let trace = [line("play", 1), line("play", 2, story: "b"), line("play", 3, story: "c"),
                     line("stop", 1), line("stop", 2, story: "b"), line("stop", 3, story: "c")].joined(separator: "\n")
        let v = TraceCheck.check(trace)
        XCTAssertEqual(v.map(\.line), [3])
        XCTAssertTrue(v[0].message.contains("3 players alive, more than 2"))
        XCTAssertEqual(TraceCheck.check(trace, maxAlive: 3), [])
    }

    /// Issue 61 item 16: over `--max-audio`, the message says when and names the participants
    /// whose sound players were alive (with each player and its story), not bare player ids.
    func testTooManyAudioPlayersNamesTheParticipantsAndWhen() {
        func audio(_ event: String, _ player: Int, _ participant: String, t: Double) -> String {
            #"{"t": \#(t), "wall": 0, "event": "\#(event)", "story": "panel", "player": \#(player), "participant": "\#(participant)", "media": "audio"}"#
        }
        let trace = [audio("play", 4, "ana", t: 0), audio("play", 5, "ben", t: 0), audio("play", 6, "cy", t: 1.25),
                     audio("stop", 4, "ana", t: 2), audio("stop", 5, "ben", t: 2), audio("stop", 6, "cy", t: 2)].joined(separator: "\n")
        let v = TraceCheck.check(trace, maxAudio: 2)
        XCTAssertEqual(v.map(\.line), [3])
        XCTAssertEqual(v.first?.message,
                       "3 audio players alive at t=1.25 s, more than 2: ana (player 4, panel), ben (player 5, panel), cy (player 6, panel)")
        XCTAssertEqual(TraceCheck.check(trace, maxAudio: 3), [])
    }

    func testShardTracesMayStartAndEndMidPlay() {
        let trace = [line("stop", 7), line("play", 8), line("firstFrame", 8)].joined(separator: "\n")
        XCTAssertFalse(TraceCheck.check(trace).isEmpty)
        XCTAssertEqual(TraceCheck.check(trace, shard: true), [])
    }

    func testEveryEventReadsBackAsWritten() throws {
        let firstFrame = TraceEvent(t: 1.5, wall: 0.25, event: .firstFrame, story: "a", item: 2, player: 3,
                                    spans: FirstFrameSpans(openMs: 2.5, firstPacketMs: 3, firstFrameMs: 40.125))
        var preload = TraceEvent(t: 0, wall: 0.004, event: .preload, story: "b \"quoted\"")
        preload.loaded = ["poster", "probe"]
        preload.detail = "h264 720x1280"
        let events = [firstFrame, preload,
                      TraceEvent(t: 2, wall: 1, event: .failed, story: "c", item: 0, player: 4, error: "Connection refused"),
                      TraceEvent(t: 3, wall: 1, event: .ignored, story: "c", item: 0, call: "stop"),
                      TraceEvent(t: 4, wall: 2, event: .reconnect, story: "c", item: 0, player: 5, attempt: 2)]
        for event in events {
            XCTAssertEqual(try TraceEvent(jsonLine: event.jsonLine), event, event.jsonLine)
        }
    }

    func testFieldsNoTraceWritesAreErrorsNamingTheField() {
        func code(_ line: String) -> TraceEvent.LineError.Code? {
            do { _ = try TraceEvent(jsonLine: line); return nil } catch { return error.code }
        }
        XCTAssertEqual(code(#"{"event": "play", "player": 1e300}"#), .badField("player"))
        XCTAssertEqual(code(#"{"event": "play", "player": 1.5}"#), .badField("player"))
        XCTAssertEqual(code(#"{"event": "play", "player": "1"}"#), .badField("player"))
        XCTAssertEqual(code(#"{"event": "play", "player": 1, "t": -1}"#), .badField("t"))
        XCTAssertEqual(code(#"{"event": "preload", "loaded": ["poster", 2]}"#), .badField("loaded"))
        XCTAssertEqual(code(#"{"event": "dance"}"#), .unknownEvent)
        XCTAssertEqual(code("[1]"), .notAnObject)
        XCTAssertNil(code(#"{"event": "play", "player": 1}"#), "missing fields have defaults")
        let v = TraceCheck.check(#"{"event": "play", "story": "a", "player": 1e300}"#)
        XCTAssertEqual(v.map(\.description), [#"line 1: "player" is not a whole number"#])
    }

    func testGarbageLinesAreReported() {
        let v = TraceCheck.check("not json\n" + #"{"event": "dance", "player": 1}"#)
        XCTAssertEqual(v.map(\.line), [1, 2])
    }
}
