import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
import StoryBase
import StoryPlayerTestSupport
import XCTest

/// What a render charges to each stage of its summary: the frame threads' decoding to decode,
/// the posters' decoding to preload.
final class StageChargeTests: XCTestCase {
    /// A render charges the frame threads' time to `stages_ms.decode`: the same clip costs about
    /// as much CPU on two threads as on one, not the little the decode thread itself spends.
    func testARenderChargesTheFrameThreadsToDecode() throws {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 180, "height": 320, "fps": 30}, "duration": 3,
         "stories": [{"id": "n", "items": [{"uri": "\(Fixture.sample("night.mp4"))"}]}]}
        """)
        var decode: [Int: Double] = [:]
        for threads in [1, 2] {
            let summary = try render(board) { $0.limits.playbackThreads = threads }.summary
            decode[threads] = summary.stageSeconds[.decode]
        }
        let one = try XCTUnwrap(decode[1]), two = try XCTUnwrap(decode[2])
        XCTAssertGreaterThan(one, 0)
        XCTAssertGreaterThan(two / one, 0.6, "decode CPU on two threads \(two) s against \(one) s on one")
        // Charged once: the threads' time is taken picture by picture, never added up again.
        XCTAssertLessThan(two / one, 2, "decode CPU on two threads \(two) s against \(one) s on one")
    }

    /// Posters and probes are charged to their own stage, `preload`, so that `decode` is the
    /// players' decoding alone: what a benchmark compares with FFmpeg decoding the same clips.
    func testPostersAreChargedToThePreloadStage() throws {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 1,
         "stories": [{"id": "a", "items": [{"uri": "\(Fixture.sample("beach.mp4"))"}]},
                     {"id": "b", "items": [{"uri": "\(Fixture.sample("city.mp4"))"}]}]}
        """)
        let (summary, trace, _) = try render(board)
        XCTAssertTrue(trace.of(.preload, story: "b").contains { $0.loaded?.contains("poster") == true },
                      "story b's poster is preloaded")
        XCTAssertGreaterThan(summary.stageSeconds[PipelineStage.preload] ?? 0, 0)
        XCTAssertGreaterThan(summary.stageSeconds[PipelineStage.decode] ?? 0, 0)
        XCTAssertTrue(summary.json.contains("\"preload\": "))
    }
}
