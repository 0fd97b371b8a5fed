import Compositor
import Foundation
import StoryPlayer
import StoryTestSupport
import XCTest

/// `FrameStepper` draws frame N as `render --frames N..N+1` writes it: the studio's scrubber
/// shows the frames a render makes, gestures, overlay and all (which `still` cannot express).
final class FrameStepperTests: XCTestCase {
    var folder: ScratchFolder!

    override func setUp() { folder = ScratchFolder() }

    /// Frames at rest, mid-hold, mid-drag, mid-turn and in the closing bubble of the demo (small).
    static let frames = [0, 50, 70, 165, 240, 300, 424]

    func testFramesMatchTheRenderOfThatFrame() throws {
        let board = try StudioHarness.writeDemo(into: folder.path)
        let storyboard = try Storyboard(contentsOf: board)
        for n in Self.frames {
            let out = folder.file("render-\(n)")
            let result = try StudioHarness.run(["render", board, "--frames", "\(n)", "--output", out, "--quiet"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let rendered = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(out, n))
            let stepper = try FrameStepper(storyboard: storyboard)
            let drawn = try stepper.frame(n)
            stepper.close()
            XCTAssertEqual(drawn.width, rendered.width)
            XCTAssertTrue(Self.samePixels(drawn, rendered), "frame \(n) differs from render --frames \(n)")
        }
    }

    /// Playing forward (one loop step per frame) gives the frames of one render of that range.
    func testStepsForwardAsARenderDoes() throws {
        let board = try StudioHarness.writeDemo(into: folder.path)
        let storyboard = try Storyboard(contentsOf: board)
        let out = folder.file("range")
        let result = try StudioHarness.run(["render", board, "--frames", "160..166", "--output", out, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let stepper = try FrameStepper(storyboard: storyboard)
        for n in 160..<166 {
            let rendered = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(out, n))
            XCTAssertTrue(Self.samePixels(try stepper.frame(n), rendered), "frame \(n)")
        }
        XCTAssertEqual(stepper.nextFrame, 166)
        XCTAssertThrowsError(try stepper.frame(100), "a stepper only goes forward")
        XCTAssertThrowsError(try stepper.frame(stepper.frameCount), "past the last frame")
    }

    /// A stepper that drew a frame and is asked for a later one (the scrubber moved forward)
    /// fast-forwards from where it is, and still draws what the render draws there.
    func testJumpsForwardAsARenderDoes() throws {
        let board = try StudioHarness.writeDemo(into: folder.path)
        let storyboard = try Storyboard(contentsOf: board)
        let stepper = try FrameStepper(storyboard: storyboard)
        for n in [40, 75, 76, 170, 250, 330] {
            let out = folder.file("jump-\(n)")
            let result = try StudioHarness.run(["render", board, "--frames", "\(n)", "--output", out, "--quiet"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let rendered = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(out, n))
            XCTAssertTrue(Self.samePixels(try stepper.frame(n), rendered), "frame \(n) after a jump")
        }
    }

    /// Frames differ over the demo, so the comparison above can fail.
    func testDifferentFramesDiffer() throws {
        let storyboard = try Storyboard(contentsOf: try StudioHarness.writeDemo(into: folder.path))
        let a = try FrameStepper(storyboard: storyboard).frame(0)
        let b = try FrameStepper(storyboard: storyboard).frame(165)
        XCTAssertFalse(Self.samePixels(a, b))
    }

    /// The lanes' trace, from the planner: plays and stops of the whole timeline, nothing decoded.
    func testPlannedTraceHasEveryStorysPlayers() throws {
        let storyboard = try Storyboard(contentsOf: try StudioHarness.writeDemo(into: folder.path))
        let (trace, frames) = FramePlanner.plannedTrace(storyboard)
        XCTAssertEqual(frames, try StoryRenderer.countFrames(storyboard), "the frames a render writes")
        let events = trace.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let played = Set(events.filter { $0["event"] as? String == "play" }.compactMap { $0["story"] as? String })
        XCTAssertEqual(played, ["beach", "city", "night", "forest"])
        XCTAssertEqual(events.filter { $0["event"] as? String == "play" }.count,
                       events.filter { $0["event"] as? String == "stop" }.count, "every player stops")
    }

    /// RGB equal (the PNG has no alpha unless asked).
    static func samePixels(_ a: RGBAImage, _ b: RGBAImage) -> Bool {
        guard a.width == b.width, a.height == b.height else { return false }
        for i in stride(from: 0, to: a.pixels.count, by: 4) where
            a.pixels[i] != b.pixels[i] || a.pixels[i + 1] != b.pixels[i + 1] || a.pixels[i + 2] != b.pixels[i + 2] {
            return false
        }
        return true
    }
}
