import CHEIF
import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

/// Issue 30, item 2: HEIC and AVIF photos, as phones save them, read by libheif. Every picture
/// is checked against libheif's own `heif-convert` (which applies `irot`/`imir` as a viewer
/// does), scaled by ImageMagick, with `PhoneCamera.tolerance` (16 levels on a cell's mean; a
/// wrong turn puts another quadrant's colour there, over 100 levels away).
final class HEIFPhotoTests: XCTestCase {
    let folder = ScratchFolder()

    /// HEIC (x265) and AVIF (aom), both made by Debian's heif-enc, through the poster path and
    /// a still item's path; the brand, not the name, routes them (an AVIF named `.jpg` too).
    func testHEICAndAVIFShowAsHeifConvertDecodesThem() throws {
        let source = try quadrants()
        for (name, options) in [("photo.heic", ["-q", "90"]), ("photo.avif", ["-A", "-q", "90"]), ("avif-named.jpg", ["-A", "-q", "90"])] {
            let photo = folder.file(name)
            try ExternalProgram.run(TestPrograms.tool("heif-enc"), options + [source, "-o", photo])
            let reference = try heifConvert(photo, width: 96, height: 64)
            let loaded = try PictureLoader.load(MediaSource(uri: photo, relativeTo: "/"), width: 96, height: 64, limits: DecodeLimits())
            PhoneCamera.assertSameRegions(loaded, reference, name)
            let atTime = try PictureLoader.load(MediaSource(uri: photo, relativeTo: "/"), at: 0, width: 96, height: 64, limits: DecodeLimits())
            PhoneCamera.assertSameRegions(atTime, reference, "\(name), at a time")
            let probe = try MediaProbe.run(photo)
            XCTAssertEqual(probe.kind, .picture)
            XCTAssertEqual(probe.codec, options.contains("-A") ? "av1" : "hevc")
            XCTAssertEqual([probe.width, probe.height], [192, 128])
        }
    }

    /// The photo's own transforms (`irot`, `imir`, written by libheif's encoder from an EXIF
    /// orientation), applied as heif-convert applies them; probe gives the size as shown.
    func testTurnsAndFlipsAreShownAsHeifConvertShowsThem() throws {
        for orientation in [2, 3, 6, 7, 8] {
            let photo = folder.file("turned-\(orientation).heic")
            try HEIFWriter.writeQuadrants(to: photo, orientation: orientation)
            let shown = PhoneCamera.shownSize(orientation: orientation)
            let reference = try heifConvert(photo, width: shown.width / 2, height: shown.height / 2)
            let loaded = try PictureLoader.load(MediaSource(uri: photo, relativeTo: "/"), width: shown.width / 2,
                                                height: shown.height / 2, limits: DecodeLimits())
            PhoneCamera.assertSameRegions(loaded, reference, "orientation \(orientation)")
            let probe = try MediaProbe.run(photo)
            XCTAssertEqual([probe.width, probe.height], [shown.width, shown.height], "orientation \(orientation)")
        }
    }

    /// A burst (several images in one file) fails its story with why, in the trace and on the
    /// card, and in probe; so does a photo whose codec libheif has no decoder for.
    func testABurstAndAMissingCodecFailWithTheirCause() throws {
        let source = try quadrants()
        let burst = folder.file("burst.heic")
        try ExternalProgram.run(TestPrograms.tool("heif-enc"), ["-q", "50", source, source, "-o", burst])
        XCTAssertThrowsError(try MediaProbe.run(burst)) { error in
            let error = error as! MediaError
            XCTAssertEqual(error.code, .unsupportedCodec)
            XCTAssertTrue(error.description.contains("holds 2 images"), error.description)
            XCTAssertTrue(MediaProbe.errorJSON(source: burst, error).contains("burst or sequence"))
        }
        // The codec: the primary image's item type changed to one libheif does not decode.
        let photo = folder.file("photo.heic")
        try ExternalProgram.run(TestPrograms.tool("heif-enc"), ["-q", "50", source, "-o", photo])
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: photo)))
        let at = try XCTUnwrap(bytes.indices.first { Array(bytes[$0..<min($0 + 4, bytes.count)]) == Array("hvc1".utf8) })
        bytes.replaceSubrange(at..<at + 4, with: Array("vvc1".utf8))
        let unknown = folder.file("unknown-codec.heic")
        try Data(bytes).write(to: URL(fileURLWithPath: unknown))
        XCTAssertThrowsError(try PictureLoader.load(MediaSource(uri: unknown, relativeTo: "/"), width: 96, height: 64,
                                                    limits: DecodeLimits())) { error in
            let error = error as! MediaError
            XCTAssertEqual(error.code, .unsupportedCodec)
            XCTAssertTrue(error.description.contains("no decoder") && error.description.contains("plugin"), error.description)
        }
        // A sequence, by its brand.
        var sequence = try [UInt8](Data(contentsOf: URL(fileURLWithPath: photo)))
        sequence.replaceSubrange(8..<12, with: Array("msf1".utf8))
        let moving = folder.file("sequence.heic")
        try Data(sequence).write(to: URL(fileURLWithPath: moving))
        XCTAssertThrowsError(try MediaProbe.run(moving)) { XCTAssertTrue("\($0)".contains("image sequence"), "\($0)") }

        // In a render: the story fails with the reason, and its card says it.
        let board = try Storyboard.parse("""
        {"canvas": {"width": 180, "height": 320, "fps": 5}, "duration": 0.4,
         "stories": [{"id": "burst", "items": [{"uri": "\(burst)", "duration": 0.4}]}]}
        """)
        let (_, events, output) = try render(board)
        let failed = events.of(.failed)
        XCTAssertEqual(failed.count, 1)
        XCTAssertTrue(failed.first?.error?.contains("holds 2 images") ?? false, "\(failed)")
        let card = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, 1))
        XCTAssertLessThan(card[97, Int(320 * 0.38)].distance(to: ErrorCardPicture.icon), 40, "the error card")
    }

    /// A HEIC on a web server (a feed's photo) is fetched whole, under the open timeout, and
    /// read by libheif as a local one is.
    func testARemoteHEICShowsAsALocalOneDoes() throws {
        try LiveServers.require("python3")
        let servers = ServerSet()
        defer { servers.stopAll() }
        let root = servers.folder.file("web")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try ExternalProgram.run(TestPrograms.tool("heif-enc"), ["-q", "90", try quadrants(), "-o", root + "/photo.heic"])
        let base = try servers.httpServer(root: root)
        let reference = try heifConvert(root + "/photo.heic", width: 96, height: 64)
        let loaded = try PictureLoader.load(MediaSource(uri: base + "/photo.heic", relativeTo: "/"), width: 96, height: 64,
                                            limits: DecodeLimits())
        PhoneCamera.assertSameRegions(loaded, reference, "over HTTP")
        XCTAssertEqual(try MediaProbe.run(base + "/photo.heic").codec, "hevc")
    }

    /// Brands: HEIF photos and sequences are told from MP4 video by their `ftyp`.
    func testTheBrandTellsHEIFFromVideo() {
        func brand(_ major: String, _ compatible: [String]) -> HEIFBrand? {
            let boxes = ([major, "\0\0\0\0"] + compatible).flatMap { Array($0.utf8) }
            let size = 8 + boxes.count
            let bytes = [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + boxes
            return bytes.withUnsafeBytes { HEIFBrand.read($0) }
        }
        XCTAssertEqual(brand("heic", ["mif1", "heic"])?.isHEIF, true)
        XCTAssertEqual(brand("avif", ["avif", "mif1"])?.isAVIF, true)
        XCTAssertEqual(brand("msf1", ["msf1"])?.isSequence, true)
        XCTAssertEqual(brand("isom", ["isom", "iso2", "avc1", "mp41"])?.isHEIF, false)
        XCTAssertEqual(brand("mp42", ["mp42", "isom"])?.isHEIF, false)
        XCTAssertNil([UInt8](repeating: 0, count: 32).withUnsafeBytes { HEIFBrand.read($0) })
    }

    // MARK: - Pictures

    /// PhoneCamera's four quadrants, 192x128, as an RGB PNG for heif-enc (a palette PNG makes
    /// Debian 12's aom encoder abort on an assertion).
    private func quadrants() throws -> String {
        let path = folder.file("quadrants.png")
        let (w, h) = (PhoneCamera.stored.width / 2, PhoneCamera.stored.height / 2)
        let colours = PhoneCamera.quadrants
        try ExternalProgram.run(TestPrograms.tool("convert"), ["-size", "\(w)x\(h)", "xc:\(colours[0])", "xc:\(colours[1])", "+append",
                                                        "(", "-size", "\(w)x\(h)", "xc:\(colours[2])", "xc:\(colours[3])", "+append", ")",
                                                        "-append", "PNG24:" + path])
        return path
    }

    /// libheif's own decoding of `photo` (heif-convert), scaled by ImageMagick.
    private func heifConvert(_ photo: String, width: Int, height: Int) throws -> RGBAImage {
        let png = folder.file(((photo as NSString).lastPathComponent as NSString).deletingPathExtension + "-reference.png")
        try ExternalProgram.run(TestPrograms.tool("heif-convert"), [photo, png])
        return try PhoneCamera.reference(png, width: width, height: height)
    }
}

/// Writes HEIC photos with libheif's encoder, which turns an EXIF orientation into `irot` and
/// `imir` boxes (heif-enc 1.15 cannot).
enum HEIFWriter {
    static func writeQuadrants(to path: String, orientation: Int) throws {
        let (width, height) = (PhoneCamera.stored.width, PhoneCamera.stored.height)
        let colours: [[UInt8]] = [[0xe0, 0x10, 0x10], [0x10, 0xc0, 0x10], [0x10, 0x10, 0xe0], [0xe0, 0xe0, 0x10]]
        let context = heif_context_alloc()
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder))
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, 90))
        var image: OpaquePointer?
        try check(heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image))
        defer { heif_image_release(image) }
        try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(width), Int32(height), 8))
        var stride: Int32 = 0
        let plane = try XCTUnwrap(heif_image_get_plane(image, heif_channel_interleaved, &stride))
        for y in 0..<height {
            for x in 0..<width {
                let colour = colours[(y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)]
                for c in 0..<3 { plane[y * Int(stride) + x * 3 + c] = colour[c] }
            }
        }
        let options = try XCTUnwrap(heif_encoding_options_alloc())
        defer { heif_encoding_options_free(options) }
        options.pointee.image_orientation = heif_orientation(rawValue: UInt32(orientation))
        try check(heif_context_encode_image(context, image, encoder, options, nil))
        try check(heif_context_write_to_file(context, path))
    }

    /// One plane of a picture to write: its channel, size, depth and rows (`bytesPerRow` each).
    struct Plane {
        var channel: heif_channel, width: Int, height: Int, depth: Int, bytesPerRow: Int, bytes: [UInt8]
    }

    /// A HEIC of `planes` with an `nclx` box naming `primaries`, `transfer`, `matrix` and
    /// range, as cameras and Android phones tag their HEIFs. heif-enc 1.15 cannot: libheif
    /// leaves the box out unless `macOS_compatibility_workaround_no_nclx_profile` is off.
    /// Lossless when `lossless` (libheif then codes 4:4:4, converting through RGB), else quality 90.
    static func write(to path: String, width: Int, height: Int, colourspace: heif_colorspace, chroma: heif_chroma,
                      planes: [Plane], primaries: Int, transfer: Int, matrix: Int, fullRange: Bool, lossless: Bool) throws {
        let context = heif_context_alloc()
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder))
        defer { heif_encoder_release(encoder) }
        if lossless {
            try check(heif_encoder_set_lossless(encoder, 1))
            try check(heif_encoder_set_parameter(encoder, "chroma", "444"))
        } else {
            try check(heif_encoder_set_lossy_quality(encoder, 90))
        }
        var image: OpaquePointer?
        try check(heif_image_create(Int32(width), Int32(height), colourspace, chroma, &image))
        defer { heif_image_release(image) }
        for plane in planes {
            try check(heif_image_add_plane(image, plane.channel, Int32(plane.width), Int32(plane.height), Int32(plane.depth)))
            var stride: Int32 = 0
            let target = try XCTUnwrap(heif_image_get_plane(image, plane.channel, &stride))
            for y in 0..<plane.height {
                for x in 0..<plane.bytesPerRow { target[y * Int(stride) + x] = plane.bytes[y * plane.bytesPerRow + x] }
            }
        }
        let nclx = try XCTUnwrap(heif_nclx_color_profile_alloc())
        defer { heif_nclx_color_profile_free(nclx) }
        nclx.pointee.color_primaries = heif_color_primaries(rawValue: UInt32(primaries))
        nclx.pointee.transfer_characteristics = heif_transfer_characteristics(rawValue: UInt32(transfer))
        nclx.pointee.matrix_coefficients = heif_matrix_coefficients(rawValue: UInt32(matrix))
        nclx.pointee.full_range_flag = fullRange ? 1 : 0
        try check(heif_image_set_nclx_color_profile(image, nclx))
        let options = try XCTUnwrap(heif_encoding_options_alloc())
        defer { heif_encoding_options_free(options) }
        options.pointee.macOS_compatibility_workaround_no_nclx_profile = 0
        try check(heif_context_encode_image(context, image, encoder, options, nil))
        try check(heif_context_write_to_file(context, path))
    }

    /// The primary picture of `path` as libheif decodes it into 10-bit YCbCr 4:2:0, in the
    /// layout of FFmpeg's `yuv420p10le` (what the photo's pixels are, whatever its encoding lost).
    static func decodedPlanes10(_ path: String) throws -> Data {
        let context = heif_context_alloc()
        defer { heif_context_free(context) }
        try check(heif_context_read_from_file(context, path, nil))
        var handle: OpaquePointer?
        try check(heif_context_get_primary_image_handle(context, &handle))
        defer { heif_image_handle_release(handle) }
        var image: OpaquePointer?
        try check(heif_decode_image(handle, &image, heif_colorspace_YCbCr, heif_chroma_420, nil))
        defer { heif_image_release(image) }
        var bytes = Data()
        for channel in [heif_channel_Y, heif_channel_Cb, heif_channel_Cr] {
            let width = Int(heif_image_get_width(image, channel)), height = Int(heif_image_get_height(image, channel))
            XCTAssertEqual(heif_image_get_bits_per_pixel_range(image, channel), 10)
            var stride: Int32 = 0
            let plane = try XCTUnwrap(heif_image_get_plane_readonly(image, channel, &stride))
            for y in 0..<height { bytes.append(plane + y * Int(stride), count: width * 2) }
        }
        return bytes
    }

    private static func check(_ error: heif_error) throws {
        guard error.code == heif_error_Ok else {
            throw ExternalProgram.Failed(message: "libheif: \(String(cString: error.message))")
        }
    }
}
