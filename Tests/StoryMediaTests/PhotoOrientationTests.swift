import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
import StoryPlayerTestSupport
import XCTest

/// Issue 30, item 1: a phone stores a portrait photo as a landscape JPEG tagged with EXIF
/// Orientation, and a story shows it upright. Each photo here is made as a phone makes it (the
/// pixels stored one way, exiftool writing the tag, in both byte orders phones use), and each
/// picture is checked against ImageMagick's `-auto-orient` of the same file, an independent
/// reading of all eight values.
final class PhotoOrientationTests: XCTestCase {
    let folder = ScratchFolder()

    /// Every value, mirrored ones included, through `PictureLoader`: the path of posters,
    /// avatars, feed thumbnails and a still's photo item.
    func testEveryEXIFOrientationLoadsAsImageMagickShowsIt() throws {
        for orientation in 1...8 {
            let photo = try PhoneCamera.photo(orientation: orientation, in: folder)
            // Scaled to half the shown size, as the reference is.
            let shown = PhoneCamera.shownSize(orientation: orientation)
            let (width, height) = (shown.width / 2, shown.height / 2)
            let loaded = try PictureLoader.load(MediaSource(uri: photo, relativeTo: "/"), width: width, height: height,
                                                limits: DecodeLimits())
            let reference = try PhoneCamera.reference(photo, width: width, height: height)
            PhoneCamera.assertSameRegions(loaded, reference, "orientation \(orientation)")
            // The story item's path (a still at a media time) turns it the same way.
            let atTime = try PictureLoader.load(MediaSource(uri: photo, relativeTo: "/"), at: 0, width: width, height: height,
                                                limits: DecodeLimits())
            PhoneCamera.assertSameRegions(atTime, reference, "orientation \(orientation), at a time")
        }
    }

    /// A WebP photo's EXIF (FFmpeg copies it into the frame's metadata, with no display matrix)
    /// turns it as the same tag turns a JPEG. ImageMagick 6 ignores a WebP's orientation, so the
    /// reference is its reading of the JPEG the WebP is made from, tagged alike.
    func testAWebPPhotoTurnsByItsEXIFToo() throws {
        for orientation in [6, 7] {
            let photo = try PhoneCamera.photo(orientation: orientation, in: folder)
            let webp = folder.file("photo-\(orientation).webp")
            try ExternalProgram.run(TestPrograms.tool("convert"), [photo, "-strip", "-define", "webp:lossless=true", webp])
            try ExternalProgram.run(TestPrograms.tool("exiftool"), ["-q", "-overwrite_original", "-n", "-Orientation=\(orientation)", webp])
            let shown = PhoneCamera.shownSize(orientation: orientation)
            let loaded = try PictureLoader.load(MediaSource(uri: webp, relativeTo: "/"), width: shown.width / 2,
                                                height: shown.height / 2, limits: DecodeLimits())
            let reference = try PhoneCamera.reference(photo, width: shown.width / 2, height: shown.height / 2)
            PhoneCamera.assertSameRegions(loaded, reference, "WebP, orientation \(orientation)")
        }
    }

    /// A PNG's `eXIf` chunk (as exiftool writes it, in both byte orders) turns it as the same
    /// tag turns a JPEG: FFmpeg 5.1's PNG decoder ignores the chunk, so the file's own bytes are
    /// read. The probe gives the shown size and the value. The reference is ImageMagick's
    /// reading of the JPEG the PNG is made from, tagged alike.
    func testAPNGPhotoTurnsByItsEXIFChunk() throws {
        for orientation in [6, 3, 8] {
            let photo = try PhoneCamera.photo(orientation: orientation, in: folder)
            let png = folder.file("photo-\(orientation).png")
            try ExternalProgram.run(TestPrograms.tool("convert"), [photo, "-strip", png])
            try ExternalProgram.run(TestPrograms.tool("exiftool"), ["-q", "-overwrite_original", "-n", "-ExifByteOrder=\(orientation % 2 == 1 ? "MM" : "II")",
                                                             "-Orientation=\(orientation)", png])
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: png)))
            XCTAssertNotNil(bytes.indices.dropLast(4).first { bytes[$0..<($0 + 4)].elementsEqual("eXIf".utf8) }, "exiftool wrote an eXIf chunk")
            XCTAssertEqual(EXIFOrientation.read(bytes)?.exif, orientation)
            let shown = PhoneCamera.shownSize(orientation: orientation)
            let loaded = try PictureLoader.load(MediaSource(uri: png, relativeTo: "/"), width: shown.width / 2,
                                                height: shown.height / 2, limits: DecodeLimits())
            let reference = try PhoneCamera.reference(photo, width: shown.width / 2, height: shown.height / 2)
            PhoneCamera.assertSameRegions(loaded, reference, "PNG, orientation \(orientation)")
            let probe = try MediaProbe.run(png)
            XCTAssertEqual(probe.orientation, orientation)
            XCTAssertEqual([probe.width, probe.height], [shown.width, shown.height], "PNG, orientation \(orientation)")
        }
    }

    /// `probe` gives the size as shown and the EXIF value.
    func testProbeReportsTheShownSizeAndTheOrientation() throws {
        for orientation in 1...8 {
            let photo = try PhoneCamera.photo(orientation: orientation, in: folder)
            let probe = try MediaProbe.run(photo)
            let shown = PhoneCamera.shownSize(orientation: orientation)
            XCTAssertEqual(probe.orientation, orientation)
            XCTAssertEqual([probe.width, probe.height], [shown.width, shown.height], "orientation \(orientation)")
            XCTAssertTrue(probe.json.contains("\"orientation\": \(orientation)"), probe.json)
        }
    }

    /// The preload window's probe decodes no picture; it reads the tag from the file, so the
    /// `preload` event's size is the shown one too.
    func testThePreloadProbeReadsTheTagWithoutDecoding() throws {
        for orientation in 1...8 {
            let photo = try PhoneCamera.photo(orientation: orientation, in: folder)
            let probe = try MediaProbe.run(source: MediaSource(uri: photo, relativeTo: "/"), limits: DecodeLimits(),
                                           isLive: false, decodeFirstFrame: false)
            let shown = PhoneCamera.shownSize(orientation: orientation)
            XCTAssertEqual(probe.orientation, orientation)
            XCTAssertEqual([probe.width, probe.height], [shown.width, shown.height], "orientation \(orientation)")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: photo)))
            XCTAssertEqual(EXIFOrientation.read(bytes)?.exif, orientation)
        }
    }

    /// The EXIF reader takes files from anywhere: cut short at every length, bytes changed at
    /// random, and headers that point outside themselves give nil or a value, never a crash.
    func testTheEXIFReaderSurvivesHostileBytes() throws {
        let photo = try PhoneCamera.photo(orientation: 6, in: folder)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: photo)))
        let header = Array(bytes.prefix(400))
        for length in 0...header.count { _ = EXIFOrientation.read(Array(header.prefix(length))) }
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for _ in 0..<20_000 {
            var mutated = header
            for _ in 0..<3 {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                mutated[Int(state % UInt64(mutated.count))] = UInt8(truncatingIfNeeded: state >> 32)
            }
            if let orientation = EXIFOrientation.read(mutated) { XCTAssertTrue((1...8).contains(orientation.exif)) }
        }
        let tiffAt = 12 // after the JPEG's SOI, APP1 marker, length and "Exif\0\0" (exiftool writes no JFIF)
        func jpeg(_ tiff: [UInt8]) -> [UInt8] {
            let length = tiff.count + 8
            return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 255)] + Array("Exif\0\0".utf8) + tiff
        }
        XCTAssertEqual(jpeg([]).count, tiffAt)
        let cases: [[UInt8]] = [
            jpeg(Array("MM".utf8) + [0, 42, 0xFF, 0xFF, 0xFF, 0xF0]), // IFD0 far past the end
            jpeg(Array("II".utf8) + [42, 0, 8, 0, 0, 0, 0xFF, 0xFF]), // 65535 entries, none there
            jpeg(Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 9, 0, 0]), // Orientation 9
            jpeg(Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0]), // cut in the value
            [0xFF, 0xD8, 0xFF, 0xE1, 0, 0], [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF, 0x45], [0xFF, 0xD8] + Array(repeating: 0xFF, count: 64),
            Array("RIFF\0\0\0\0WEBPEXIF".utf8) + [0xFF, 0xFF, 0xFF, 0xFF], Array("RIFF\0\0\0\0WEBP".utf8),
        ]
        for bytes in cases { XCTAssertNil(EXIFOrientation.read(bytes), "\(bytes)") }
        let good = jpeg(Array("II".utf8) + [42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(EXIFOrientation.read(good)?.exif, 5)
    }

    /// EXIF's numbering, and the display matrices FFmpeg's MJPEG decoder makes of it
    /// (`av_display_rotation_set` and `av_display_matrix_flip`, as read from its frames).
    func testDisplayMatricesReadAsTheirEXIFValue() {
        let one: Int32 = 65536, w: Int32 = 1 << 30
        let matrices: [Int: [Int32]] = [
            1: [one, 0, 0, 0, one, 0, 0, 0, w], 2: [-one, 0, 0, 0, one, 0, 0, 0, w],
            3: [-one, 0, 0, 0, -one, 0, 0, 0, w], 4: [one, 0, 0, 0, -one, 0, 0, 0, w],
            5: [0, one, 0, one, 0, 0, 0, 0, w], 6: [0, one, 0, -one, 0, 0, 0, 0, w],
            7: [0, -one, 0, -one, 0, 0, 0, 0, w], 8: [0, -one, 0, one, 0, 0, 0, 0, w],
        ]
        for (exif, matrix) in matrices {
            XCTAssertEqual(PictureOrientation(displayMatrix: matrix)?.exif, exif, "matrix \(matrix)")
            XCTAssertEqual(PictureOrientation(exif: exif)?.exif, exif)
        }
        XCTAssertNil(PictureOrientation(exif: 0))
        XCTAssertNil(PictureOrientation(exif: 9))
        // Degenerate and extreme matrices are refused or read, never a crash.
        XCTAssertNil(PictureOrientation(displayMatrix: [0, 0, 0, 0, 0, 0, 0, 0, 0]))
        XCTAssertNil(PictureOrientation(displayMatrix: [1, 2]))
        XCTAssertNotNil(PictureOrientation(displayMatrix: [.min, .min, 0, .min, .max, 0, 0, 0, 0]))
    }
}
