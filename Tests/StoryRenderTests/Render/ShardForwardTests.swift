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

/// A shard that starts mid-clip decodes forward from the keyframe before its first picture,
/// letting the decoder drop what cannot be shown:
/// its frames must be the whole render's, byte for byte, and its summary says what it spent.
final class ShardForwardTests: XCTestCase {
    func testShardsStartingBetweenKeyframesDrawTheWholeRendersBytes() throws {
        // The demo at its own 30 fps (pictures one frame apart, so the picture shown at a shard's
        // first frame is often a B frame), small: frames 36-90 are the beach video's items, 285-303
        // the night clip.
        let board = try Storyboard(contentsOf: Fixture.sample("demo.json")).overriding(width: 90, height: 160, fps: 30, duration: 10.2)
        let (_, _, wholeFolder) = try render(board)
        var passedOver = 0, droppable = 0
        for start in [38, 41, 47, 53, 58, 64, 71, 77, 84, 287, 296, 301] {
            let range = start..<(start + 2)
            let (shard, _, folder) = try render(board) { $0.frameRange = range }
            try assertSameFrames(range, in: folder, as: wholeFolder)
            let cost = try XCTUnwrap(shard.shardCost)
            XCTAssertGreaterThan(cost.opening.count, 0, "\(range) opened its playing item again")
            passedOver += cost.decodingForward.count
            droppable += cost.droppablePackets
            let json = try String(contentsOfFile: folder.file("summary.json"), encoding: .utf8)
            XCTAssertTrue(json.contains("\"shard_cost\": {\"opening\": {\"sources\": \(cost.opening.count)"), json)
        }
        XCTAssertGreaterThan(passedOver, 0, "pictures decoded forward and passed over are counted")
        XCTAssertGreaterThan(droppable, 0, "the decoder was let drop pictures")
    }
}

extension ShardForwardTests {
    /// A clip played by several items is opened once by a shard's fast-forward, which only needs
    /// its length (`MediaFactsBook`), and the shard still draws the whole render's bytes.
    func testAShardOpensAClipItPassesOverOnce() throws {
        let clip = Fixture.sample("beach.mp4")
        let json = """
        {"canvas": {"width": 90, "height": 160, "fps": 30},
         "stories": [{"id": "same", "items": [{"uri": "\(clip)"}, {"uri": "\(clip)"}, {"uri": "\(clip)"}, {"uri": "\(clip)"}]}]}
        """
        let folder = ScratchFolder()
        try json.write(toFile: folder.file("board.json"), atomically: true, encoding: .utf8)
        let board = try Storyboard(contentsOf: folder.file("board.json"))
        let (_, _, wholeFolder) = try render(board)
        // 10.4 s: inside the fourth item, three passed over.
        let range = 312..<315
        let (shard, _, shardFolder) = try render(board) { $0.frameRange = range }
        try assertSameFrames(range, in: shardFolder, as: wholeFolder)
        // The first item's deferred open, then the fourth's decode thread; not one per item.
        XCTAssertEqual(try XCTUnwrap(shard.shardCost).opening.count, 2)
    }
}

extension ShardForwardTests {
    /// A shard in which a clip it started mid-item ends: the demo at 90x160 and 8 fps, as
    /// `render-sharded.sh` splits it in three whole seconds (80..116). The night clip, started
    /// at the shard's first frame, ends at 10.375 s, and its last picture stays on the cube's
    /// edge during the turn (frame 87). Holding back the pictures decoded forward before
    /// conversion drew that frame differently from the whole render; every frame must match.
    func testAShardEndingAnItemDrawsTheWholeRendersBytes() throws {
        let board = try Storyboard(contentsOf: Fixture.sample("demo.json")).overriding(width: 90, height: 160, fps: 8)
        let (_, _, wholeFolder) = try render(board)
        let range = 80..<116
        let (_, _, folder) = try render(board) { $0.frameRange = range }
        try assertSameFrames(range, in: folder, as: wholeFolder)
    }

    /// Each frame of `range` in the shard's `folder` has the bytes of the whole render's.
    private func assertSameFrames(_ range: Range<Int>, in folder: ScratchFolder, as whole: ScratchFolder,
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        for n in range {
            let a = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(whole.path, n)))
            let b = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(folder.path, n)))
            XCTAssertEqual(a, b, "frame \(n) of shard \(range)", file: file, line: line)
        }
    }
}
