import Foundation
@testable import StoryMedia
import StoryEncode
import StoryModel
import StoryPlayback
import StoryTrace
@testable import StoryRender
import StoryPlayerTestSupport
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
                let a = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(whole.path, n)))
                let b = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(folder.path, n)))
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
        let even = ShardSplit.ranges(frames: try StoryRenderer.countFrames(board), shards: 4)
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

    /// The choice itself, on costs made up: each cut goes to the cheapest frame within its
    /// window, the nearest to the even cut among equals, then the earlier; in whole units; never
    /// past the end or onto the cut before it.
    func testEachCutGoesToTheCheapestFrameInItsWindow() {
        let even = ShardSplit.ranges(frames: 600, shards: 4, unit: 30)
        XCTAssertEqual(ShardCuts.window(size: 150, unit: 30, fps: 30), 1, "a second, in whole seconds")
        XCTAssertEqual(ShardCuts.window(size: 90, unit: 30, fps: 30), 0, "a quarter of 3 s is not a whole second")
        XCTAssertEqual(ShardCuts.window(size: 75, unit: 1, fps: 30), 18, "a quarter of a shard")
        XCTAssertEqual(ShardCuts.window(size: 900, unit: 1, fps: 29.97), 30, "a second's frames")
        // Free at 180 (cut 150 moves a second later) and at 270 and 330 (cut 300: as near both
        // ways, the earlier); cut 450 has nothing cheaper and stays.
        let free: Set = [180, 270, 330]
        let moved = ShardCuts.moving(even, unit: 30, steps: 1, frames: 600) { free.contains($0) ? 0 : 1 }
        XCTAssertEqual(moved, [0..<180, 180..<270, 270..<450, 450..<600])
        // All alike: the even cuts stay.
        XCTAssertEqual(ShardCuts.moving(even, unit: 30, steps: 1, frames: 600) { _ in 0.5 }, even)
        // A last cut cannot move onto the end, nor a cut onto the one before it.
        let short = [0..<10, 10..<20, 20..<21]
        let cheapLate = ShardCuts.moving(short, unit: 1, steps: 5, frames: 21) { Double(21 - $0) }
        XCTAssertEqual(cheapLate, [0..<15, 15..<20, 20..<21], "cut 20 may only go up to 20, the last frame")
        let cheapEarly = ShardCuts.moving(short, unit: 1, steps: 12, frames: 21) { Double($0) }
        XCTAssertEqual(cheapEarly, [0..<1, 1..<8, 8..<21], "each cut after the one before, within its own window")
    }

    /// The keyframes a clip's index gives, as `ShardCuts` reads them: the sample clips' (one a
    /// second); none for a clip whose index is not whole at opening (WebM) or whose first entry
    /// an edit list drops (cut without re-encoding), whose times would be off.
    func testKeyframesFromTheContainersIndex() throws {
        func keyframes(_ path: String) throws -> [Double] {
            let decoder = try MediaDecoder(source: MediaSource(uri: path, relativeTo: "/"), limits: DecodeLimits())
            defer { decoder.close() }
            return decoder.keyframeTimes
        }
        let city = try keyframes(Fixture.sample("city.mp4"))
        XCTAssertEqual(city.count, 3, "\(city)")
        for (found, expected) in zip(city, [0.0, 1, 2]) { XCTAssertEqual(found, expected, accuracy: 1e-6, "\(city)") }
        let folder = ScratchFolder()
        let ffmpeg = try TestPrograms.tool("ffmpeg")
        _ = try ExternalProgram.run(ffmpeg, ["-v", "error", "-y", "-i", Fixture.sample("city.mp4"), "-vf", "scale=90:160",
                                             "-c:v", "libvpx-vp9", "-deadline", "realtime", "-g", "30", "-an", folder.file("city.webm")])
        XCTAssertEqual(try keyframes(folder.file("city.webm")), [])
        _ = try ExternalProgram.run(ffmpeg, ["-v", "error", "-y", "-ss", "0.5", "-i", Fixture.sample("city.mp4"), "-c", "copy",
                                             folder.file("trimmed.mp4")])
        XCTAssertEqual(try keyframes(folder.file("trimmed.mp4")), [])
        XCTAssertEqual(try keyframes(Fixture.sample("sunset.jpg")), [], "a photo")
    }

    /// A phone's HEVC with open GOPs: its keyframes after the first decode three frames before
    /// they show, the first two. A shard starting on the picture just before such a keyframe
    /// seeked onto the keyframe, from which that picture cannot be decoded, and showed another
    /// (frame 29 of this clip); the seek now reads back where it landed and goes earlier.
    func testAShardStartingJustBeforeAnOpenGOPKeyframeShowsTheWholeRendersPicture() throws {
        let folder = ScratchFolder()
        _ = try ExternalProgram.run(try TestPrograms.tool("ffmpeg"), [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=3", "-c:v", "libx265", "-preset", "ultrafast",
            "-x265-params", "keyint=30:min-keyint=30:bframes=3:log-level=error", "-tag:v", "hvc1", folder.file("phone.mov")])
        let json = """
        {"canvas": {"width": 90, "height": 160, "fps": 30}, "duration": 2.5,
         "stories": [{"id": "phone", "items": [{"uri": "phone.mov"}]}]}
        """
        let board = try Storyboard(json: Data(json.utf8), folder: folder.path)
        let (_, _, whole) = try render(board)
        for first in [28, 29, 30, 58, 59] {
            let (_, _, shard) = try render(board) { $0.frameRange = first..<(first + 2) }
            for n in first..<(first + 2) {
                let a = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(whole.path, n)))
                let b = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(shard.path, n)))
                XCTAssertEqual(a, b, "frame \(n) of the shard from \(first)")
            }
        }
    }

    /// Photos have no keyframes: every cut costs the same, and the even cuts stay.
    func testPhotosKeepTheEvenCuts() throws {
        let json = """
        {"canvas": {"width": 90, "height": 160, "fps": 30},
         "stories": [{"id": "photos", "items": [{"uri": "sunset.jpg", "duration": 2}, {"uri": "home.jpg", "duration": 3}]}]}
        """
        let board = try Storyboard(json: Data(json.utf8), folder: Fixture.sample(""))
        let frames = try StoryRenderer.countFrames(board)
        XCTAssertEqual(try ShardCuts.ranges(board, shards: 3), ShardSplit.ranges(frames: frames, shards: 3))
    }
}
