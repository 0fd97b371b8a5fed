import Compositor
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
import XCTest

/// Posters come from the first keyframe alone (`MediaDecoder.firstPicture`), not after the
/// packets a decoder with B-frames holds its first picture back for.
final class PosterDecodingTests: XCTestCase {
    func testFirstPictureIsTheKeyframesAndReadsOnePacket() throws {
        // The sample clips are x264 with B-frames: the decoder delays its first picture.
        let source = MediaSource(uri: Fixture.sample("beach.mp4"), relativeTo: "/")
        let plain = try MediaDecoder(source: source, limits: DecodeLimits())
        defer { plain.close() }
        let expected = try XCTUnwrap(plain.nextPicture())
        XCTAssertGreaterThan(plain.reception.videoPackets, 1, "the clip should delay its first picture")

        let early = try MediaDecoder(source: source, limits: DecodeLimits())
        defer { early.close() }
        let first = try XCTUnwrap(early.firstPicture())
        XCTAssertEqual(early.reception.videoPackets, 1, "one packet, the keyframe")
        XCTAssertEqual(first.time, expected.time)
        XCTAssertEqual(try early.rgba(first, width: 72, height: 128), try plain.rgba(expected, width: 72, height: 128))

        let poster = try PictureLoader.load(source, width: 72, height: 128, limits: DecodeLimits())
        XCTAssertEqual(poster, try plain.rgba(expected, width: 72, height: 128))
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
