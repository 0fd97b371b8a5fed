import Compositor
@testable import StoryMedia
@testable import StoryModel
import StoryPlayerTestSupport
import XCTest

/// A shard's decoding forward lets the decoder drop pictures that cannot be shown
/// (`ForwardDiscard`): the pictures it does return must be those of a decode from the start,
/// pixel for pixel, and the one shown at the shard's start must be the same picture.
final class ForwardDiscardTests: XCTestCase {
    let source = MediaSource(uri: Fixture.sample("beach.mp4"), relativeTo: "/")

    /// Every picture up to `limit` (presentation seconds), as small RGBA.
    func decode(_ decoder: MediaDecoder, upTo limit: Double) throws -> [(time: Double, image: RGBAImage)] {
        var pictures: [(time: Double, image: RGBAImage)] = []
        while let picture = try decoder.nextPicture(), picture.time <= limit {
            pictures.append((picture.time, try decoder.rgba(picture, width: 72, height: 128)))
        }
        return pictures
    }

    func seeked(to start: Double, dropping: Bool) throws -> MediaDecoder {
        let decoder = try MediaDecoder(source: source, limits: DecodeLimits())
        try decoder.seek(to: start)
        if dropping { decoder.dropUnneededPictures(before: start) }
        return decoder
    }

    func testDroppedPicturesAreNeverTheOneShownAndTheRestDecodeAsFromTheStart() throws {
        let whole = try decode(try MediaDecoder(source: source, limits: DecodeLimits()), upTo: .infinity)
        XCTAssertEqual(whole.count, 90)
        var decodedPlain = 0, decodedDropping = 0
        // Frame times, times between frames, and times on and next to the keyframes (0.83, 1.8, 2.57).
        for start in [0.05, 0.4, 0.5, 0.52, 0.8, 0.84, 1.0, 1.25, 1.4, 1.75, 1.8, 2.0, 2.2, 2.35, 2.55, 2.9] {
            let limit = start + 0.3
            let dropping = try seeked(to: start, dropping: true)
            let pictures = try decode(dropping, upTo: limit)
            let shown = try XCTUnwrap(pictures.last { $0.time <= start + 1e-9 }, "\(start)")
            let expected = try XCTUnwrap(whole.last { $0.time <= start + 1e-9 })
            XCTAssertEqual(shown.time, expected.time, "the picture shown at \(start)")
            XCTAssertTrue(shown.image == expected.image, "its pixels at \(start)")
            let later = pictures.filter { $0.time > start + 1e-9 }
            XCTAssertEqual(later.map(\.time), whole.filter { $0.time > start + 1e-9 && $0.time <= limit }.map(\.time), "\(start)")
            for picture in later {
                XCTAssertTrue(whole.first { $0.time == picture.time }?.image == picture.image, "\(picture.time) after \(start)")
            }
            decodedDropping += pictures.count - later.count
            decodedPlain += try decode(try seeked(to: start, dropping: false), upTo: start + 1e-9).count
        }
        XCTAssertLessThan(decodedDropping, decodedPlain, "some pictures before the starts were dropped unread")
    }
}
