import Compositor
import Foundation
@testable import StoryModel
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

/// The realtime clock's late frames: skipped when drawn, written as copies of the frame before,
/// and never one past the render's end.
final class FramePacingTests: XCTestCase {
    /// An open-ended realtime render of one 1 s photo at 10 fps has frames 0 to 9. When the frame
    /// at which the viewer finishes (10) comes late, the render still ends there: 10 frames, no
    /// late frame listed. It used to step the viewer only at the next drawn frame, so frame 10
    /// was listed late and written as a copy, one frame past the end. A late frame within the
    /// render (5) is still listed and written as a copy.
    func testALateFrameAtTheEndIsNotAFramePastIt() throws {
        let folder = ScratchFolder()
        try RGBAImage(width: 36, height: 64, fill: RGBAColor(red: 255, green: 0, blue: 0)).writePNG(to: folder.file("red.png"))
        let board = try Storyboard.parse("""
        {"canvas": {"width": 36, "height": 64, "fps": 10}, "clock": "realtime",
         "stories": [{"id": "a", "items": [{"uri": "red.png", "duration": 1}]}]}
        """, folder: folder.path)
        let output = ScratchFolder()
        let (summary, trace, _) = try render(board, into: output) { $0.framesTakenAsLate = { $0 == 5 || $0 == 10 } }
        XCTAssertEqual(summary.lateFrames, [5])
        let frames = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.hasPrefix("frame-") }
        XCTAssertEqual(frames.count, 10, frames.sorted().description)
        XCTAssertTrue(FileManager.default.fileExists(atPath: StoryRenderer.framePath(output.path, 5)), "the late frame 5 as a copy")
        XCTAssertEqual(trace.of(.stop).map(\.t), [1.0], "the player stops where the viewer finished")
    }

    /// A recording lists its last late frames only, and counts them all: over hours the list
    /// and summary.json would otherwise grow without end. A frame forgotten leaves the count.
    func testARecordingListsItsLastLateFramesAndCountsThemAll() {
        var pacing = FramePacing(clock: .realtime, fps: 1000, takenAsLate: { $0 % 2 == 1 }, listsAtMost: 3)
        for n in 0..<12 { _ = pacing.waitForFrame(n) }
        XCTAssertEqual(pacing.lateFrames, [7, 9, 11])
        XCTAssertEqual(pacing.lateFrameCount, 6)
        pacing.forget(11)
        XCTAssertEqual(pacing.lateFrames, [7, 9])
        XCTAssertEqual(pacing.lateFrameCount, 5)
        var render = FramePacing(clock: .realtime, fps: 1000, takenAsLate: { $0 % 2 == 1 })
        for n in 0..<12 { _ = render.waitForFrame(n) }
        XCTAssertEqual(render.lateFrames, [1, 3, 5, 7, 9, 11], "a render keeps them all: its files fill them in")
    }
}
