import Compositor
import Foundation
import StoryEncode
import StoryMedia
import StoryModel
import StoryPlayback
import StoryRender
import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// Frame-range shards: the same bytes as a full render, without drawing what comes before.
final class ShardTests: XCTestCase {
    func board() throws -> Storyboard {
        // The demo at 10 fps, small: frames 40-50 are the auto-advance cube, 12-30 a video item.
        try Storyboard(contentsOf: Fixture.sample("demo.json")).overriding(width: 90, height: 160, fps: 10)
    }

    func renderRange(_ board: Storyboard, _ range: Range<Int>?) throws -> (RenderSummary, [TraceEvent], ScratchFolder) {
        try render(board) { $0.frameRange = range }
    }

    /// The library, not the CLI, refuses a shard of a realtime render: its frames depend on when
    /// it ran, so shards could not be joined. Nothing is written.
    func testAShardOfARealtimeRenderIsRefusedBeforeAnyWork() throws {
        for (storyboardClock, optionClock) in [(PlaybackClock.realtime, PlaybackClock?.none), (.virtual, .realtime)] {
            var board = try board()
            board.clock = storyboardClock
            let folder = ScratchFolder()
            var options = RenderOptions(outputFolder: folder.path + "/out")
            options.frameRange = 0..<5
            options.clock = optionClock
            XCTAssertThrowsError(try StoryRenderer(storyboard: board, options: options).run()) { error in
                XCTAssertEqual((error as? RenderError)?.code, .options)
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path + "/out"), "nothing is written")
        }
    }

    /// Shards' folders merge into one trace equal to the whole render's, wall-clock times and
    /// spans aside (pictures included, for players that cross a shard's edge), which passes plain
    /// `check`; gaps and overlaps are refused.
    func testMergedShardsEqualTheWholeRender() throws {
        let board = try board()
        let (full, fullTrace, _) = try renderRange(board, nil)
        let shards = try [0..<37, 37..<90, 90..<145].map { try renderRange(board, $0) }
        let output = ScratchFolder()
        let merged = try ShardMerge.merge(shards.map(\.2.path).reversed(), into: output.path)
        let mergedTrace = try String(contentsOfFile: output.file("lifecycle.jsonl"), encoding: .utf8)
        XCTAssertEqual(comparableLines(LifecycleTimeline.events(fromJSONLines: mergedTrace)), comparableLines(fullTrace))
        XCTAssertEqual(TraceCheck.check(mergedTrace), [])
        XCTAssertEqual(merged.frames, full.frames)
        XCTAssertTrue(FileManager.default.fileExists(atPath: StoryRenderer.framePath(output.path, 144)), "frames moved in")
        XCTAssertThrowsError(try ShardMerge.merge([shards[0].2.path, shards[2].2.path], into: ScratchFolder().path)) { error in
            XCTAssertEqual((error as? RenderError)?.message, "frames 37..<90 of the render's 145 are in no shard")
        }
    }

    /// Found by an audit: a shard rendered at another --size has the same frame count and rate,
    /// and joined the others with exit 0 (360x640 and 180x320 frames in one folder). And a
    /// folder that is not there is not a shard: refused as one (exit 2), not as an output error.
    func testShardsOfAnotherSizeOrNoFolderAtAllAreRefused() throws {
        let board = try board()
        let first = try renderRange(board, 0..<20).2
        let other = try render(board.overriding(width: 46, height: 80)) { $0.frameRange = 20..<145 }.folder
        XCTAssertThrowsError(try ShardMerge.merge([first.path, other.path], into: ScratchFolder().path)) { error in
            XCTAssertEqual((error as? RenderError)?.code, .options)
            XCTAssertTrue((error as? RenderError)?.message.contains("has 46x80 frames") ?? false, "\(error)")
        }
        XCTAssertThrowsError(try ShardMerge.merge([first.path, first.path + "-not-there"], into: ScratchFolder().path)) { error in
            XCTAssertEqual((error as? RenderError)?.code, .options, "\(error)")
        }
    }

    /// Found by an audit: shards drawn with other options (`--no-overlay`) or from an edited
    /// storyboard have the same frame count, rate and size, and joined the others with exit 0,
    /// mixing two renders' pictures. Each shard's summary now says what it was drawn from
    /// (`render_of`), and merge names the difference.
    func testShardsDrawnWithOtherOptionsOrFromAnotherStoryboardAreRefused() throws {
        let board = try board()
        let first = try renderRange(board, 0..<20).2
        let summary = try String(contentsOfFile: first.file("summary.json"), encoding: .utf8)
        XCTAssertTrue(summary.contains("\"render_of\": {\"storyboard\": \"\(try XCTUnwrap(board.sourceDigest))\""), summary)
        let noOverlay = try render(board) { $0.frameRange = 20..<145; $0.overlay = false }.folder
        XCTAssertThrowsError(try ShardMerge.merge([first.path, noOverlay.path], into: ScratchFolder().path)) { error in
            XCTAssertEqual((error as? RenderError)?.code, .options)
            XCTAssertTrue((error as? RenderError)?.message.contains("it was drawn from overlay off against on") ?? false, "\(error)")
        }
        var text = try String(contentsOfFile: Fixture.sample("demo.json"), encoding: .utf8)
        text = text.replacingOccurrences(of: "\"at\": 1.6", with: "\"at\": 1.7")
        let edited = try Storyboard.parse(text, folder: (Fixture.sample("demo.json") as NSString).deletingLastPathComponent)
            .overriding(width: 90, height: 160, fps: 10)
        XCTAssertNotEqual(edited.sourceDigest, board.sourceDigest)
        let other = try render(edited) { $0.frameRange = 20..<145 }.folder
        XCTAssertThrowsError(try ShardMerge.merge([first.path, other.path], into: ScratchFolder().path)) { error in
            XCTAssertTrue((error as? RenderError)?.message.contains("another storyboard text") ?? false, "\(error)")
        }
        // A partial merge is a shard of its own, and says what it was drawn from too (found in
        // review: it did not, so a later merge of it with other options went through).
        let middle = try renderRange(board, 20..<70).2
        let partial = ScratchFolder()
        try ShardMerge.merge([first.path, middle.path], into: partial.path, allowPartial: true)
        let late = try render(board) { $0.frameRange = 70..<145; $0.overlay = false }.folder
        XCTAssertThrowsError(try ShardMerge.merge([partial.path, late.path], into: ScratchFolder().path)) { error in
            XCTAssertTrue((error as? RenderError)?.message.contains("overlay off against on") ?? false, "\(error)")
        }
        // A shard that does not say (an older render-stories) beside one that does: refused.
        let same = try renderRange(board, 20..<145).2
        let summaryPath = same.file("summary.json")
        var summaryText = try String(contentsOfFile: summaryPath, encoding: .utf8)
        let start = try XCTUnwrap(summaryText.range(of: "\n  \"render_of\": {"))
        let end = try XCTUnwrap(summaryText.range(of: "},", range: start.upperBound..<summaryText.endIndex))
        let renderOf = String(summaryText[start.lowerBound..<end.upperBound])
        summaryText.removeSubrange(start.lowerBound..<end.upperBound)
        try summaryText.write(toFile: summaryPath, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ShardMerge.merge([first.path, same.path], into: ScratchFolder().path)) { error in
            XCTAssertTrue((error as? RenderError)?.message.contains("does not say what it was drawn from") ?? false, "\(error)")
        }
        // The same storyboard and options: merged.
        let restored: String = summaryText.replacingOccurrences(of: "\n  \"timeline_frames\"", with: renderOf + "\n  \"timeline_frames\"")
        try restored.write(toFile: summaryPath, atomically: true, encoding: .utf8)
        XCTAssertNoThrow(try ShardMerge.merge([first.path, same.path], into: ScratchFolder().path))
    }

    /// A whole render merged into a folder an earlier, longer render used replaces it, as a
    /// whole render into it does (found by an audit: frames 100-144 of the earlier one stayed).
    func testAMergeIntoAUsedFolderLeavesNoFrameOfAnother() throws {
        let board = try board()
        let shards = try [0..<70, 70..<145].map { try renderRange(board, $0).2 }
        let output = ScratchFolder()
        for n in [150, 200] {
            FileManager.default.createFile(atPath: StoryRenderer.framePath(output.path, n), contents: Data([1]))
        }
        try ShardMerge.merge(shards.map(\.path), into: output.path)
        let names = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.hasPrefix("frame-") }
        XCTAssertEqual(names.count, 145, "the render's frames only")
    }

    func testShardsAreByteIdenticalInsideATransitionAndInsideAVideoItem() throws {
        let board = try board()
        let (full, _, fullFolder) = try renderRange(board, nil)
        XCTAssertEqual(full.frames, 145)
        // 43 is inside the auto-advance cube turn (4.5 s to 5.1 s), 22 inside the beach video's
        // second item after a tap and a hold, 95 inside the night clip (a landscape clip turned).
        for range in [43..<52, 22..<27, 95..<101] {
            let (shard, events, folder) = try renderRange(board, range)
            XCTAssertEqual(shard.frames, range.count)
            for n in range {
                let a = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(fullFolder.path, n)))
                let b = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(folder.path, n)))
                XCTAssertEqual(a, b, "frame \(n) of shard \(range)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: StoryRenderer.framePath(folder.path, range.lowerBound - 1)),
                           "nothing before the range is drawn")
            // The range, and a drag or pull let go since the frame before, which its first
            // frame's step records.
            XCTAssertTrue(events.allSatisfy { $0.t >= Double(range.lowerBound) / 10 - 1e-9
                                              || ($0.event == .gesture && $0.t > Double(range.lowerBound - 1) / 10) },
                          "the trace covers only the range")
            let text = events.map(\.jsonLine).joined(separator: "\n")
            XCTAssertEqual(TraceCheck.check(text, shard: true), [], "\(range)")
        }
    }

    /// A live room decides who is large from its sound, frame by frame. A shard follows that in
    /// its fast-forward, so it starts the large participant's video at the moment a full render
    /// does and draws the same bytes (the sample room's speaker changes at 0.9 s and 3.9 s);
    /// its shards' traces merge into the full render's. A shard used to show the first
    /// participant, and fade the room in from its poster.
    func testARoomShardIsTheFullRenderFromTheSameFrame() throws {
        let board = try Storyboard(contentsOf: Fixture.sample("room.json"))
            .overriding(width: 90, height: 160, fps: 10, duration: 6)
        let (full, fullTrace, fullFolder) = try renderRange(board, nil)
        XCTAssertEqual(full.frames, 60)
        for range in [12..<20, 43..<50] {
            let (_, _, folder) = try renderRange(board, range)
            for n in range {
                let a = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(fullFolder.path, n)))
                let b = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(folder.path, n)))
                XCTAssertEqual(a, b, "frame \(n) of shard \(range)")
            }
        }
        let shards = try [0..<25, 25..<60].map { try renderRange(board, $0) }
        let output = ScratchFolder()
        _ = try ShardMerge.merge(shards.map(\.2.path), into: output.path)
        let mergedTrace = try String(contentsOfFile: output.file("lifecycle.jsonl"), encoding: .utf8)
        XCTAssertEqual(comparableLines(LifecycleTimeline.events(fromJSONLines: mergedTrace)), comparableLines(fullTrace))
        XCTAssertEqual(TraceCheck.check(mergedTrace), [])
    }

    /// At 24 fps a room's 100 ms sound windows end between frames. A change of speaker found at
    /// frame L, in a window that ended before it, was stamped with the window's end: the shard
    /// from L dropped it as the previous shard's, and the previous shard never measured that
    /// window. Cuts on every frame around the sample room's first change (0.9 s) merge into the
    /// whole render's trace.
    func testARoomsSpeakerChangesSurviveEveryCut() throws {
        let board = try Storyboard(contentsOf: Fixture.sample("room.json"))
            .overriding(width: 90, height: 160, fps: 24, duration: 2)
        let (full, fullTrace, _) = try renderRange(board, nil)
        XCTAssertEqual(full.frames, 48)
        XCTAssertFalse(fullTrace.filter { $0.event == .speaker }.isEmpty, "the sample room changes speaker")
        for cut in 20...24 {
            let shards = try [0..<cut, cut..<48].map { try renderRange(board, $0) }
            let output = ScratchFolder()
            _ = try ShardMerge.merge(shards.map(\.2.path), into: output.path)
            let merged = try String(contentsOfFile: output.file("lifecycle.jsonl"), encoding: .utf8)
            XCTAssertEqual(comparableLines(LifecycleTimeline.events(fromJSONLines: merged)).filter { $0.contains("speaker") },
                           comparableLines(fullTrace).filter { $0.contains("speaker") }, "cut at frame \(cut)")
        }
    }

    func testCountingFramesMatchesAFullRender() throws {
        let board = try board()
        XCTAssertEqual(try StoryRenderer.countFrames(board), 145)
        XCTAssertEqual(try StoryRenderer.countFrames(board.overriding(duration: 2)), 20)
    }

    /// "The frames of shard i of N", the one rule render-sharded.sh, the Slurm array and the
    /// Kubernetes Indexed Job split by: equal ceil sizes, the last shorter, no gaps; whole GOPs
    /// may leave fewer shards than asked for.
    func testShardSplitCoversTheFramesWithoutGaps() {
        XCTAssertEqual(ShardSplit.ranges(frames: 116, shards: 4), [0..<29, 29..<58, 58..<87, 87..<116])
        XCTAssertEqual(ShardSplit.ranges(frames: 116, shards: 4, unit: 8), [0..<32, 32..<64, 64..<96, 96..<116])
        XCTAssertEqual(ShardSplit.ranges(frames: 10, shards: 4, unit: 8), [0..<8, 8..<10])
        XCTAssertEqual(ShardSplit.ranges(frames: 3, shards: 8), [0..<1, 1..<2, 2..<3])
        XCTAssertEqual(ShardSplit.ranges(frames: 0, shards: 3), [])
        for frames in 1...60 {
            for shards in 1...9 {
                for unit in [1, 7, 30] {
                    let ranges = ShardSplit.ranges(frames: frames, shards: shards, unit: unit)
                    XCTAssertLessThanOrEqual(ranges.count, shards)
                    XCTAssertEqual(ranges.first?.lowerBound, 0)
                    XCTAssertEqual(ranges.last?.upperBound, frames)
                    XCTAssertTrue(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
                    XCTAssertTrue(ranges.dropLast().allSatisfy { $0.count % unit == 0 }, "whole units but the last")
                }
            }
        }
        XCTAssertEqual(ShardSplit.gop(fps: 29.97), 30)
        XCTAssertEqual(ShardSplit.gop(fps: 0.4), 1)
    }
}
