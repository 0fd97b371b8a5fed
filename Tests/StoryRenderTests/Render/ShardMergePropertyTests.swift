import Foundation
import StoryEncode
import StoryMedia
import StoryModel
import StoryPlayback
import StoryRender
import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// Shards merge into the whole render wherever the cuts fall: a trace's times are written to
/// the millisecond, so at most frame rates a cut's time is rounded, and the merge must find a
/// shard's invented edge by its frame, not by comparing rounded times (issue 28, item 1).
final class ShardMergePropertyTests: XCTestCase {
    /// A short storyboard whose videos play across most cuts: a video and a photo, a tap, a
    /// cube turn, a second video. Open-ended (the render runs until the viewer finishes), or
    /// ending mid-play when `duration` is given.
    func board(fps: Int, duration: Double?) throws -> Storyboard {
        let json = """
        {"canvas": {"width": 72, "height": 128, "fps": \(fps)},
         \(duration.map { "\"duration\": \($0)," } ?? "")
         "transition": {"style": "cube", "duration": 0.3},
         "stories": [
           {"id": "beach", "items": [{"uri": "beach.mp4", "duration": 1.1}, {"uri": "sunset.jpg", "duration": 0.4}]},
           {"id": "city", "items": [{"uri": "city.mp4", "duration": 0.9}]}
         ],
         "script": [{"at": 0.7, "action": "tap", "x": 0.8}]}
        """
        return try Storyboard.parse(json, folder: Fixture.sample(""))
    }

    /// Every cut count from 2 to 8, at 24, 25, 30 and 60 fps: the merged trace is the whole
    /// render's (wall-clock times and spans aside) and passes plain `check`.
    func testEveryCutMergesIntoTheWholeRender() throws {
        let started = Date()
        for fps in [24, 25, 30, 60] {
            for duration in [nil, 1.9] as [Double?] {
                let board = try board(fps: fps, duration: duration)
                let (whole, wholeTrace, _) = try render(board) { $0.writeFrames = false }
                let expected = comparableLines(wholeTrace)
                for count in 2...8 {
                    let ranges = ShardSplit.ranges(frames: whole.timelineFrames, shards: count)
                    let shards = try ranges.map { range in
                        try render(board) { $0.frameRange = range; $0.writeFrames = false }
                    }
                    for shard in shards {
                        XCTAssertEqual(shard.summary.timelineFrames, whole.timelineFrames, "each shard knows the whole render's frames")
                        XCTAssertFalse(shard.summary.notices.contains { $0.hasPrefix("stopped after") }, "\(shard.summary.notices)")
                    }
                    let output = ScratchFolder()
                    let merged = try ShardMerge.merge(shards.map(\.folder.path), into: output.path)
                    let text = try String(contentsOfFile: output.file("lifecycle.jsonl"), encoding: .utf8)
                    let what = "\(fps) fps, \(duration.map { "\($0) s" } ?? "open-ended"), cuts \(ranges.dropFirst().map(\.lowerBound))"
                    let joined = comparableLines(LifecycleTimeline.events(fromJSONLines: text))
                    XCTAssertEqual(joined, expected, "\(what): \(firstDifference(joined, expected))")
                    XCTAssertEqual(TraceCheck.check(text), [], what)
                    XCTAssertEqual(merged.frames, whole.frames, what)
                    XCTAssertNil(merged.frameRange, what)
                    XCTAssertEqual(merged.notices, whole.notices, what)
                }
            }
        }
        print("ShardMergePropertyTests: \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }

    /// A drag let go between two frames: its `gesture` event is the whole render's wherever the
    /// cut falls, with a duration and open-ended (a shard then steps to its edge, recording the
    /// release). At 0.75 s (frame 22.5 at 30 fps) an audit found it lost when the cut was the
    /// frame after the release: the shard before had it, at a time that rounds to the cut's
    /// frame, and the merge took it for that shard's edge; the shard after, which kept only
    /// what came at or after its first frame, did not have it. At 0.367 s, the millisecond frame
    /// 11 is written at, and at 240 fps, a release comparing times as written is lost too.
    func testAGestureLetGoBetweenFramesSurvivesEveryCut() throws {
        for (fps, release, cuts) in [(30, 0.75, 20...25), (30, 0.367, 9...13), (240, 0.7521, 178...183)] {
            for duration in ["\"duration\": 1.6,", ""] {
                let json = """
                {"canvas": {"width": 72, "height": 128, "fps": \(fps)}, \(duration)
                 "stories": [
                   {"id": "beach", "items": [{"uri": "beach.mp4", "duration": 1.2}]},
                   {"id": "city", "items": [{"uri": "city.mp4", "duration": 1}]}
                 ],
                 "script": [{"at": \(release - 0.25), "action": "drag", "to": 0.35, "over": 0.2, "release_velocity": 1500},
                            {"at": \(release), "action": "release"}]}
                """
                let board = try Storyboard.parse(json, folder: Fixture.sample(""))
                let (whole, wholeTrace, _) = try render(board) { $0.writeFrames = false }
                XCTAssertEqual(wholeTrace.filter { $0.event == .gesture }.map(\.t), [release])
                let expected = comparableLines(wholeTrace)
                for cut in cuts {
                    let shards = try [0..<cut, cut..<whole.timelineFrames].map { range in
                        try render(board) { $0.frameRange = range; $0.writeFrames = false }
                    }
                    let output = ScratchFolder()
                    _ = try ShardMerge.merge(shards.map(\.folder.path), into: output.path)
                    let text = try String(contentsOfFile: output.file("lifecycle.jsonl"), encoding: .utf8)
                    let joined = comparableLines(LifecycleTimeline.events(fromJSONLines: text))
                    let what = "\(fps) fps, release at \(release), cut at \(cut), \(duration.isEmpty ? "open-ended" : duration)"
                    XCTAssertEqual(joined.count, expected.count, what)
                    XCTAssertEqual(joined, expected, "\(what): \(firstDifference(joined, expected))")
                    XCTAssertEqual(TraceCheck.check(text), [], what)
                }
            }
        }
    }
}
