@testable import StoryModel
@testable import StoryPlayback
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// Each input a fuzz target (`make fuzz`, Tests/Fuzz/) found, kept as a test of its own: the
/// input as the fuzzer wrote it, and the property the target checks.
final class FuzzRegressionTests: XCTestCase {
    /// The trace-line target's property: a line that reads writes a line that reads again, to
    /// an event that writes the very same line.
    func assertWritesStably(_ line: String, file: StaticString = #filePath, lineNumber: UInt = #line) throws {
        let event = try TraceEvent(jsonLine: line)
        let written = event.jsonLine
        let again = try XCTUnwrap(try? TraceEvent(jsonLine: written), "not JSON once written: \(written)",
                                  file: file, line: lineNumber)
        XCTAssertEqual(again.jsonLine, written, file: file, line: lineNumber)
    }

    /// trace-line: a time past 1e15 was written as "%.3f" less its trailing zeros, which ends in
    /// a bare "." ("5555…552.") that no JSON reader takes.
    func testAHugeTimeIsWrittenAsAJSONNumber() throws {
        let line = #"{"t": 1.5, "wall": 555555555555555555555555555555555555555555555555555555555555555555555555555555555552, "event": "failed", "sry": "x", "item": 0, "player": 3, "error": "Connection refused"}"#
        try assertWritesStably(line)
        // Each written number reads back as itself (1.7e308 used to overflow to "inf").
        for value in [1e15, 1.7e308, 5.555555555555556e86, -2e20] {
            let text = JSONText.number(value)
            XCTAssertEqual(try JSONValue.parse(Data(text.utf8)), .number(value), text)
        }
        XCTAssertEqual(JSONText.number(999_999_999_999_999), "999999999999999")
    }

    /// trace-line: the trace keeps milliseconds, so a finer time read from a line written
    /// elsewhere is rounded once, and from then on reads and writes the same.
    func testAFinerTimeIsRoundedOnceToTheMillisecond() throws {
        let line = #"{"t": 0, "wall": 0.0023, "event": "preload", "story": "city", "loaded": ["poster", "probe"], "detail": "h264 720x1280"}"#
        try assertWritesStably(line)
        XCTAssertTrue(try TraceEvent(jsonLine: line).jsonLine.contains(#""wall": 0.002,"#))
    }
}
