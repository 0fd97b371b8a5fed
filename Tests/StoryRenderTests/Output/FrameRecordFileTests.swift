import Compositor
import Foundation
@testable import StoryRender
import XCTest

/// `frames.jsonl` as the render writes it: a record a drawn frame, and for a realtime render's
/// frames too late to draw, the record before them again at their own number and time.
final class FrameRecordFileTests: XCTestCase {
    private func drawn(_ n: Int, page: Double) -> DrawnFrame {
        let picture = RGBAImage(width: 2, height: 2)
        let face = FrameRecord.Face(story: "one", item: 0, shows: "picture", mediaTime: Double(n) / 30, bar: nil,
                                    quad: [[0, 0], [2, 0], [2, 2], [0, 2]])
        let record = FrameRecord(frame: n, t: Double(n) / 30, page: page, open: 1, faces: [face])
        return DrawnFrame(index: n, time: Double(n) / 30, fps: 30, canvas: picture, opaque: picture, record: record) {
            FrameSound(count: $0)
        }
    }

    func testLateFramesRepeatTheRecordBeforeThem() throws {
        var file = FrameRecordFile()
        for (n, page) in [(0, 0.0), (1, 0.1), (3, 0.3)] { try file.take(drawn(n, page: page)) }
        try file.endFrames(FramesEnding(lateFrames: [2, 4, 5]))
        let records = file.records.sorted { $0.frame < $1.frame }
        XCTAssertEqual(records.map(\.frame), [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(records.map(\.page), [0, 0.1, 0.1, 0.3, 0.3, 0.3], "what the repeated picture showed")
        XCTAssertEqual(records[2].t, 2.0 / 30, accuracy: 1e-12)
        XCTAssertEqual(records[5].faces.first?.mediaTime, 3.0 / 30, "the picture repeated, not a new one")
        let lines = FrameRecord.lines(file.records).split(separator: "\n")
        XCTAssertEqual(lines.count, 6)
        XCTAssertTrue(lines[2].hasPrefix(#"{"faces":[{"item":0,"media_t":0.0333"#), String(lines[2]))
        XCTAssertTrue(lines[2].hasSuffix(#""frame":2,"open":1,"page":0.1,"t":0.06666666666666667}"#), String(lines[2]))
    }
}
