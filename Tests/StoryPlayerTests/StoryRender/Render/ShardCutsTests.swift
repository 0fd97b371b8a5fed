import Foundation
import StoryPlayer
import XCTest

/// `frames --shards N --keyframes`: cuts moved onto the playing clips' keyframes, read back from
/// what the shards did (`shard_cost.decoding_forward`) and from their frames.
final class ShardCutsTests: XCTestCase {
    /// One story of four 3 s sample clips, each with a keyframe every second (city, forest and
    /// night; ffprobe), 10 s at 30 fps, small. Four even shards cut at 2.5 s (city at 2.5 s),
    /// 5 s (forest at 2 s, on a keyframe) and 7.5 s (night at 1.5 s).
    func board(duration: Double = 10) throws -> Storyboard {
        let items = ["city", "forest", "night", "city"].map { "{\"uri\": \"\($0).mp4\"}" }.joined(separator: ", ")
        let json = """
        {"canvas": {"width": 90, "height": 160, "fps": 30}, "duration": \(duration),
         "stories": [{"id": "clips", "items": [\(items)]}]}
        """
        return try Storyboard(json: Data(json.utf8), folder: Fixture.sample(""))
    }

    /// The pictures each shard decoded before its first frame, and the whole render's frames
    /// against each shard's.
    func renderShards(_ board: Storyboard, _ ranges: [Range<Int>], whole: ScratchFolder) throws -> Int {
        var pictures = 0
        for range in ranges {
            let (summary, _, folder) = try render(board) { $0.frameRange = range }
            pictures += summary.shardCost?.decodingForward.count ?? 0
            for n in [range.lowerBound, range.upperBound - 1] {
                let a = try Data(contentsOf: URL(fileURLWithPath: StoryRender.framePath(whole.path, n)))
                let b = try Data(contentsOf: URL(fileURLWithPath: StoryRender.framePath(folder.path, n)))
                XCTAssertEqual(a, b, "frame \(n) of shard \(range) is the whole render's")
            }
        }
        return pictures
    }

    /// The even cuts make two shards decode forward; the moved cuts land on keyframes, so none
    /// does, and every shard's frames are still the whole render's. Each cut moved by at most a
    /// second, into the same number of shards over the same frames.
    func testCutsMovedOntoKeyframesDecodeNothingForward() throws {
        let board = try board()
        let even = ShardSplit.ranges(frames: try StoryRender.countFrames(board), shards: 4)
        let moved = try ShardCuts.ranges(board, shards: 4)
        XCTAssertEqual(even, [0..<75, 75..<150, 150..<225, 225..<300])
        XCTAssertEqual(moved.count, even.count)
        XCTAssertEqual(moved.first?.lowerBound, 0)
        XCTAssertEqual(moved.last?.upperBound, 300)
        XCTAssertTrue(zip(moved, moved.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound && !$0.isEmpty })
        for (a, b) in zip(moved, even) { XCTAssertLessThanOrEqual(abs(a.lowerBound - b.lowerBound), 30, "\(a) from \(b)") }
        XCTAssertEqual(moved[2].lowerBound, 150, "a cut already on a keyframe stays")

        let (_, _, whole) = try render(board)
        let evenPictures = try renderShards(board, even, whole: whole)
        let movedPictures = try renderShards(board, moved, whole: whole)
        XCTAssertGreaterThan(evenPictures, 0, "the even cuts fall inside GOPs")
        XCTAssertEqual(movedPictures, 0, "cuts \(moved.map(\.lowerBound)) decode nothing forward")
    }

    /// With whole seconds the cuts stay on whole GOPs of the render's clip (30 frames), and move
    /// only where a quarter of a shard leaves room: 20 s in 4 shards of 5 s may move a second.
    func testWholeSecondsCutsStayOnWholeSeconds() throws {
        let board = try board(duration: 20)
        let moved = try ShardCuts.ranges(board, shards: 4, unit: 30)
        XCTAssertEqual(moved.count, 4)
        XCTAssertEqual(moved.last?.upperBound, 600)
        XCTAssertTrue(moved.dropLast().allSatisfy { $0.upperBound % 30 == 0 }, "\(moved)")
        // Shards of 2 s (10 s in 5) have no room to move in whole seconds.
        XCTAssertEqual(try ShardCuts.ranges(try self.board(), shards: 5, unit: 30),
                       ShardSplit.ranges(frames: 300, shards: 5, unit: 30))
    }

    /// Photos have no keyframes: every cut costs the same, and the even cuts stay.
    func testPhotosKeepTheEvenCuts() throws {
        let json = """
        {"canvas": {"width": 90, "height": 160, "fps": 30},
         "stories": [{"id": "photos", "items": [{"uri": "sunset.jpg", "duration": 2}, {"uri": "home.jpg", "duration": 3}]}]}
        """
        let board = try Storyboard(json: Data(json.utf8), folder: Fixture.sample(""))
        let frames = try StoryRender.countFrames(board)
        XCTAssertEqual(try ShardCuts.ranges(board, shards: 3), ShardSplit.ranges(frames: frames, shards: 3))
    }
}
