import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
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
            let photo = try PhoneMedia.photo(orientation: orientation, in: folder)
            // Scaled to half the shown size, as the reference is.
            let shown = PhoneMedia.shownSize(orientation: orientation)
            let (width, height) = (shown.width / 2, shown.height / 2)
            let loaded = try PictureLoader.load(MediaSource(uri: photo, relativeTo: "/"), width: width, height: height,
                                                limits: DecodeLimits())
            let reference = try PhoneMedia.reference(photo, width: width, height: height)
            PhoneMedia.assertSameRegions(loaded, reference, "orientation \(orientation)")
            // The story item's path (a still at a media time) turns it the same way.
            let atTime = try PictureLoader.load(MediaSource(uri: photo, relativeTo: "/"), at: 0, width: width, height: height,
                                                limits: DecodeLimits())
            PhoneMedia.assertSameRegions(atTime, reference, "orientation \(orientation), at a time")
        }
    }

    /// A WebP photo's EXIF (FFmpeg copies it into the frame's metadata, with no display matrix)
    /// turns it as the same tag turns a JPEG. ImageMagick 6 ignores a WebP's orientation, so the
    /// reference is its reading of the JPEG the WebP is made from, tagged alike.
    func testAWebPPhotoTurnsByItsEXIFToo() throws {
        for orientation in [6, 7] {
            let photo = try PhoneMedia.photo(orientation: orientation, in: folder)
            let webp = folder.file("photo-\(orientation).webp")
            try PhoneMedia.run(PhoneMedia.tool("convert"), [photo, "-strip", "-define", "webp:lossless=true", webp])
            try PhoneMedia.run(PhoneMedia.tool("exiftool"), ["-q", "-overwrite_original", "-n", "-Orientation=\(orientation)", webp])
            let shown = PhoneMedia.shownSize(orientation: orientation)
            let loaded = try PictureLoader.load(MediaSource(uri: webp, relativeTo: "/"), width: shown.width / 2,
                                                height: shown.height / 2, limits: DecodeLimits())
            let reference = try PhoneMedia.reference(photo, width: shown.width / 2, height: shown.height / 2)
            PhoneMedia.assertSameRegions(loaded, reference, "WebP, orientation \(orientation)")
        }
    }

    /// A PNG's `eXIf` chunk (as exiftool writes it, in both byte orders) turns it as the same
    /// tag turns a JPEG: FFmpeg 5.1's PNG decoder ignores the chunk, so the file's own bytes are
    /// read. The probe gives the shown size and the value. The reference is ImageMagick's
    /// reading of the JPEG the PNG is made from, tagged alike.
    func testAPNGPhotoTurnsByItsEXIFChunk() throws {
        for orientation in [6, 3, 8] {
            let photo = try PhoneMedia.photo(orientation: orientation, in: folder)
            let png = folder.file("photo-\(orientation).png")
            try PhoneMedia.run(PhoneMedia.tool("convert"), [photo, "-strip", png])
            try PhoneMedia.run(PhoneMedia.tool("exiftool"), ["-q", "-overwrite_original", "-n", "-ExifByteOrder=\(orientation % 2 == 1 ? "MM" : "II")",
                                                             "-Orientation=\(orientation)", png])
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: png)))
            XCTAssertNotNil(bytes.indices.dropLast(4).first { bytes[$0..<($0 + 4)].elementsEqual("eXIf".utf8) }, "exiftool wrote an eXIf chunk")
            XCTAssertEqual(EXIFOrientation.read(bytes)?.exif, orientation)
            let shown = PhoneMedia.shownSize(orientation: orientation)
            let loaded = try PictureLoader.load(MediaSource(uri: png, relativeTo: "/"), width: shown.width / 2,
                                                height: shown.height / 2, limits: DecodeLimits())
            let reference = try PhoneMedia.reference(photo, width: shown.width / 2, height: shown.height / 2)
            PhoneMedia.assertSameRegions(loaded, reference, "PNG, orientation \(orientation)")
            let probe = try MediaProbe.run(png)
            XCTAssertEqual(probe.orientation, orientation)
            XCTAssertEqual([probe.width, probe.height], [shown.width, shown.height], "PNG, orientation \(orientation)")
        }
    }

    /// `probe` gives the size as shown and the EXIF value.
    func testProbeReportsTheShownSizeAndTheOrientation() throws {
        for orientation in 1...8 {
            let photo = try PhoneMedia.photo(orientation: orientation, in: folder)
            let probe = try MediaProbe.run(photo)
            let shown = PhoneMedia.shownSize(orientation: orientation)
            XCTAssertEqual(probe.orientation, orientation)
            XCTAssertEqual([probe.width, probe.height], [shown.width, shown.height], "orientation \(orientation)")
            XCTAssertTrue(probe.json.contains("\"orientation\": \(orientation)"), probe.json)
        }
    }

    /// The preload window's probe decodes no picture; it reads the tag from the file, so the
    /// `preload` event's size is the shown one too.
    func testThePreloadProbeReadsTheTagWithoutDecoding() throws {
        for orientation in 1...8 {
            let photo = try PhoneMedia.photo(orientation: orientation, in: folder)
            let probe = try MediaProbe.run(source: MediaSource(uri: photo, relativeTo: "/"), limits: DecodeLimits(),
                                           isLive: false, decodeFirstFrame: false)
            let shown = PhoneMedia.shownSize(orientation: orientation)
            XCTAssertEqual(probe.orientation, orientation)
            XCTAssertEqual([probe.width, probe.height], [shown.width, shown.height], "orientation \(orientation)")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: photo)))
            XCTAssertEqual(EXIFOrientation.read(bytes)?.exif, orientation)
        }
    }

    /// The EXIF reader takes files from anywhere: cut short at every length, bytes changed at
    /// random, and headers that point outside themselves give nil or a value, never a crash.
    func testTheEXIFReaderSurvivesHostileBytes() throws {
        let photo = try PhoneMedia.photo(orientation: 6, in: folder)
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

// MARK: - Photos as phones make them, and ImageMagick's view of them

/// A 192x128 JPEG of four coloured quadrants (no two alike, so each of the eight orientations
/// puts them in a different place), tagged by exiftool.
enum PhoneMedia {
    static let stored = (width: 192, height: 128)
    static let quadrants = ["#e01010", "#10c010", "#1010e0", "#e0e010"] // top left, top right, bottom left, bottom right

    /// Orientations 5-8 swap the sides.
    static func shownSize(orientation: Int) -> (width: Int, height: Int) {
        orientation >= 5 ? (stored.height, stored.width) : stored
    }

    /// The photo, tagged `orientation`: big-endian EXIF (as iPhones write it) for odd values,
    /// little-endian (as most Android phones do) for even ones.
    static func photo(orientation: Int, in folder: ScratchFolder) throws -> String {
        let path = folder.file("photo-\(orientation).jpg")
        let (w, h) = (stored.width / 2, stored.height / 2)
        try run(tool("convert"), ["-size", "\(w)x\(h)", "xc:\(quadrants[0])", "xc:\(quadrants[1])", "+append",
                                  "(", "-size", "\(w)x\(h)", "xc:\(quadrants[2])", "xc:\(quadrants[3])", "+append", ")",
                                  "-append", "-quality", "92", path])
        try run(tool("exiftool"), ["-q", "-overwrite_original", "-n", "-ExifByteOrder=\(orientation % 2 == 1 ? "MM" : "II")",
                                   "-Orientation=\(orientation)", path])
        let written = try run(tool("exiftool"), ["-s3", "-n", "-Orientation", path])
        precondition(String(decoding: written, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "\(orientation)")
        return path
    }

    /// ImageMagick's upright picture, scaled to `width`×`height`.
    static func reference(_ path: String, width: Int, height: Int) throws -> RGBAImage {
        let bytes = try run(tool("convert"), [path, "-auto-orient", "-resize", "\(width)x\(height)!", "-depth", "8", "rgba:-"])
        guard bytes.count == width * height * 4 else {
            throw ExternalProgram.Failed(message: "ImageMagick gave \(bytes.count) bytes for a \(width)x\(height) picture")
        }
        return RGBAImage(width: width, height: height, pixels: [UInt8](bytes))
    }

    /// The tolerance: JPEG decoders (FFmpeg's and libjpeg's) and scalers differ by a few levels;
    /// a wrong orientation puts another quadrant's colour there, over 100 levels away.
    static let tolerance = 16

    /// The pictures' sizes are equal, and in each cell of a 4×4 grid the mean colour of the
    /// cell's middle half (away from the quadrants' edges, where JPEG blurs colours) is within
    /// `tolerance` on every channel.
    static func assertSameRegions(_ picture: RGBAImage, _ reference: RGBAImage, _ what: String,
                                  file: StaticString = #filePath, line: UInt = #line) {
        guard picture.width == reference.width, picture.height == reference.height else {
            XCTFail("\(what): \(picture.width)x\(picture.height), not \(reference.width)x\(reference.height)", file: file, line: line)
            return
        }
        let cellWidth = picture.width / 4, cellHeight = picture.height / 4
        for row in 0..<4 {
            for column in 0..<4 {
                let xs = (column * cellWidth + cellWidth / 4)..<(column * cellWidth + cellWidth * 3 / 4)
                let ys = (row * cellHeight + cellHeight / 4)..<(row * cellHeight + cellHeight * 3 / 4)
                let ours = mean(picture, xs, ys), theirs = mean(reference, xs, ys)
                let off = zip(ours, theirs).map { abs($0 - $1) }.max() ?? 0
                XCTAssertLessThanOrEqual(off, tolerance, "\(what): cell \(column),\(row) is \(ours), ImageMagick's \(theirs)",
                                         file: file, line: line)
            }
        }
    }

    private static func mean(_ image: RGBAImage, _ xs: Range<Int>, _ ys: Range<Int>) -> [Int] {
        var sums = [0, 0, 0]
        for y in ys {
            for x in xs {
                let pixel = image[x, y]
                sums[0] += Int(pixel.red); sums[1] += Int(pixel.green); sums[2] += Int(pixel.blue)
            }
        }
        return sums.map { $0 / max(1, xs.count * ys.count) }
    }

    /// The program's path; missing, a skip on a developer's machine and a failure under
    /// `CI=true` (`make test` installs both).
    static func tool(_ name: String) throws -> String {
        guard let path = LiveServers.which(name) else {
            throw LiveServers.unavailable("\(name) is not installed (make test installs it)")
        }
        if name == "convert" {
            // Only ImageMagick's convert knows -auto-orient.
            let version = String(decoding: (try? run(path, ["-version"])) ?? Data(), as: UTF8.self)
            guard version.contains("Version: ImageMagick") else {
                throw LiveServers.unavailable("ImageMagick is not installed (make test installs it)")
            }
        }
        return path
    }

    /// Runs `program` and gives its standard output; a failure fails the test.
    @discardableResult
    static func run(_ program: String, _ arguments: [String]) throws -> Data {
        try ExternalProgram.run(program, arguments)
    }
}
