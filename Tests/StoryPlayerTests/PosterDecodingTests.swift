import Compositor
@testable import StoryPlayer
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
}
