import Compositor
@testable import StoryMedia
@testable import StoryModel
import StoryPlayerTestSupport
import XCTest

/// swscale writing straight into a picture's own storage against the padded frame and row copy
/// it replaced: the pixels must not change.
final class ConversionTests: XCTestCase {
    func convert(_ fixture: String, width: Int, height: Int, inPlace: Bool) throws -> RGBAImage {
        let decoder = try MediaDecoder(source: MediaSource(uri: Fixture.path(fixture), relativeTo: "/"), limits: DecodeLimits())
        decoder.convertsInPlace = inPlace
        let picture = try XCTUnwrap(try decoder.nextPicture())
        return try decoder.rgba(picture, width: width, height: height)
    }

    /// The decode thread converts each frame into the picture its player has just let go of.
    /// The pixels must be those of a fresh conversion, written into the spare's own storage
    /// (no new allocation) — for straight and turned sources alike.
    func testConvertingIntoASparePictureReusesItsStorage() throws {
        for fixture in ["counter.mp4", "rotated.mp4"] {
            let decoder = try MediaDecoder(source: MediaSource(uri: Fixture.path(fixture), relativeTo: "/"), limits: DecodeLimits())
            let first = try XCTUnwrap(try decoder.nextPicture())
            let second = try XCTUnwrap(try decoder.nextPicture())
            let spare = try decoder.rgba(first, width: 72, height: 128)
            let fresh = try decoder.rgba(second, width: 72, height: 128)
            let storage = spare.pixels.withUnsafeBufferPointer { $0.baseAddress }
            let reused = try decoder.rgba(second, width: 72, height: 128, reusing: consume spare)
            XCTAssertTrue(reused == fresh, fixture)
            XCTAssertEqual(reused.pixels.withUnsafeBufferPointer { $0.baseAddress }, storage, fixture)
        }
    }

    /// A spare that is still shown somewhere else must not be written over.
    func testASharedSparePictureIsLeftAlone() throws {
        let decoder = try MediaDecoder(source: MediaSource(uri: Fixture.path("counter.mp4"), relativeTo: "/"), limits: DecodeLimits())
        let first = try XCTUnwrap(try decoder.nextPicture())
        let second = try XCTUnwrap(try decoder.nextPicture())
        let shown = try decoder.rgba(first, width: 72, height: 128)
        // A copy with storage of its own: comparing `shown` with another copy of the same
        // buffer would pass even if the conversion wrote over the shared pixels.
        let before = shown.pixels.withUnsafeBufferPointer { Array($0) }
        let converted = try decoder.rgba(second, width: 72, height: 128, reusing: shown)
        XCTAssertEqual(shown.pixels, before, "the shared picture changed")
        XCTAssertNotEqual(converted.pixels.withUnsafeBufferPointer { $0.baseAddress },
                          shown.pixels.withUnsafeBufferPointer { $0.baseAddress }, "converted into the shared storage")
        XCTAssertNotEqual(converted.pixels, before, "the second frame differs from the first")
    }

    func testConvertingInPlaceGivesTheSamePixels() throws {
        // Scaled up and down, cropped to a different aspect, and an unscaled size.
        for fixture in ["sar.mp4", "counter.mp4"] {
            for (width, height) in [(1080, 1920), (72, 128), (64, 128), (40, 200)] {
                let direct = try convert(fixture, width: width, height: height, inPlace: true)
                let padded = try convert(fixture, width: width, height: height, inPlace: false)
                XCTAssertEqual(direct.width, width)
                XCTAssertTrue(direct == padded, "\(fixture) at \(width)x\(height)")
            }
        }
    }
}
