@testable import StoryTrace
import XCTest

/// A recording's output events in `lifecycle.jsonl`: written with their fields, read back the
/// same, and not player events, so `check` passes a recording's trace.
final class RecordingTraceTests: XCTestCase {
    func testOutputEventsReadBackWithTheirFields() throws {
        var closed = TraceEvent(t: 12.5, wall: 12.6, event: .segmentClosed, story: "")
        closed.output = "segments"
        closed.file = "/data/room1/20261206T234000Z.mp4"
        closed.duration = 300.033
        closed.bytes = 123_456_789
        var dropped = TraceEvent(t: 13, wall: 13.1, event: .pushDropped, story: "")
        dropped.output = "rtmp://ingest/live/key"
        dropped.ms = 2033.3
        let lost = TraceEvent(t: 14, wall: 14, event: .outputLost, story: "", error: "cannot connect")
        for event in [closed, dropped, lost] {
            XCTAssertEqual(try TraceEvent(jsonLine: event.jsonLine), event)
        }
        XCTAssertTrue(closed.jsonLine.contains("\"event\": \"segment_closed\""))
        XCTAssertTrue(closed.jsonLine.contains("\"bytes\": 123456789"))
        XCTAssertTrue(dropped.jsonLine.contains("\"ms\": 2033.3"))
    }

    func testCheckPassesATraceWithOutputEvents() {
        let lines = [
            #"{"t": 0, "wall": 0, "event": "output_started", "story": "", "output": "hls"}"#,
            #"{"t": 0, "wall": 0, "event": "play", "story": "a", "item": 0, "player": 1}"#,
            #"{"t": 1, "wall": 1, "event": "output_lost", "story": "", "output": "srt://x", "error": "gone"}"#,
            #"{"t": 2, "wall": 2, "event": "output_back", "story": "", "output": "srt://x"}"#,
            #"{"t": 2, "wall": 2, "event": "push_dropped", "story": "", "output": "srt://x", "ms": 1000}"#,
            #"{"t": 3, "wall": 3, "event": "segment_closed", "story": "", "output": "hls", "file": "s.m4s", "duration": 2, "bytes": 9}"#,
            #"{"t": 4, "wall": 4, "event": "stop", "story": "a", "item": 0, "player": 1}"#,
        ]
        XCTAssertEqual(TraceCheck.check(lines.joined(separator: "\n")), [])
    }
}
