import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
import Synchronization
import StoryPlayerTestSupport
import XCTest

/// Issue 30, item 3: HDR phone videos (HLG and PQ, BT.2020, 10-bit HEVC) are shown tone-mapped
/// to BT.709 SDR. Each clip is made with ffmpeg and libx265 (main10) as a phone tags it, and every
/// picture is checked against ffmpeg's own `zscale,tonemap,zscale` of the same file with the
/// same curve: an independent run of the filters, decoded and converted by the ffmpeg CLI.
final class HDRToneMappingTests: XCTestCase {
    let folder = ScratchFolder()

    /// Our picture and ffmpeg's are both exact conversions of the same decoded picture through the
    /// same filters, so they may differ only by swscale's rounding of planar to packed RGB: every
    /// channel of every pixel within 2 levels. Without tone mapping (swscale's plain BT.2020
    /// conversion of the HLG signal) the clip below is off by 10 levels on average and up to 255.
    static let tolerance = 2

    // MARK: - still, the player and posters

    /// An HLG and a PQ clip, each in `still` (`StillRender`, the poster path), tone-mapped with
    /// the default curve, `hable`.
    func testHLGAndPQStillsAreToneMappedAsFFmpegDoes() throws {
        for transfer in ["arib-std-b67", "smpte2084"] {
            let clip = try HDRMedia.clip(transfer: transfer, in: folder)
            let board = try HDRMedia.storyboard([clip], folder: folder)
            let still = try StillRender.render(board, pageOffset: 0, time: 0, overlay: false).image
            let reference = try HDRMedia.reference(clip, transfer: transfer, curve: .hable, frame: 0)
            HDRMedia.assertClose(still, reference, HDRToneMappingTests.tolerance, transfer)
        }
    }

    /// A render's frames come through the decode and convert threads: a picture half-way through
    /// the clip is tone-mapped as ffmpeg maps the same source frame.
    func testRenderedFramesAreToneMappedAsFFmpegDoes() throws {
        let clip = try HDRMedia.clip(transfer: "arib-std-b67", in: folder)
        let board = try HDRMedia.storyboard([clip], folder: folder, duration: 0.5)
        let result = try render(board) { $0.overlay = false }
        // Frame 3 of the render shows source frame 3 (both at 10 fps).
        let frame = try HDRMedia.decodePNG(result.folder.file("frame-000003.png"))
        let reference = try HDRMedia.reference(clip, transfer: "arib-std-b67", curve: .hable, frame: 3)
        HDRMedia.assertClose(frame, reference, HDRToneMappingTests.tolerance, "render frame 3")
    }

    /// `"tonemap": "clip"` maps as ffmpeg's `tonemap=clip` does, and so differs from `hable`
    /// where the HDR picture is brighter than SDR white: there `clip` burns out what `hable`
    /// rolls off (the bars of the test picture differ by up to ~100 levels).
    func testAClipItemIsClippedNotRolledOff() throws {
        let clip = try HDRMedia.clip(transfer: "arib-std-b67", in: folder)
        let board = try HDRMedia.storyboard([clip], folder: folder, curve: "clip")
        let still = try StillRender.render(board, pageOffset: 0, time: 0, overlay: false).image
        let clipped = try HDRMedia.reference(clip, transfer: "arib-std-b67", curve: .clip, frame: 0)
        HDRMedia.assertClose(still, clipped, HDRToneMappingTests.tolerance, "clip")
        let hable = try HDRMedia.reference(clip, transfer: "arib-std-b67", curve: .hable, frame: 0)
        let difference = zip(still.pixels, hable.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        XCTAssertGreaterThanOrEqual(difference, 50, "clip and hable look alike")
        // And every curve the storyboard names is one the filter knows.
        for curve in ToneMapCurve.allCases where curve != .clip && curve != .hable {
            let board = try HDRMedia.storyboard([clip], folder: folder, curve: curve.rawValue)
            let still = try StillRender.render(board, pageOffset: 0, time: 0, overlay: false).image
            HDRMedia.assertClose(still, try HDRMedia.reference(clip, transfer: "arib-std-b67", curve: curve, frame: 0),
                                 HDRToneMappingTests.tolerance, curve.rawValue)
        }
    }

    /// A clip tagged with an HDR transfer and nothing else (8-bit H.264 here) is taken as
    /// BT.2020 with BT.2020's matrix, as `zscale` is told by name in the reference. Before, the
    /// filters found "no path between colorspaces" and the story failed.
    func testAClipThatNamesOnlyItsTransferIsTakenAsBT2020() throws {
        let clip = folder.file("hlg-only.mp4")
        try ExternalProgram.run(try TestPrograms.tool("ffmpeg"), [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=\(HDRMedia.size.width)x\(HDRMedia.size.height):d=0.2:r=10",
            "-c:v", "libx264", "-pix_fmt", "yuv420p", "-color_trc", "arib-std-b67", clip,
        ])
        let board = try HDRMedia.storyboard([clip], folder: folder, curve: "reinhard")
        let still = try StillRender.render(board, pageOffset: 0, time: 0, overlay: false)
        XCTAssertEqual(still.problems, [])
        HDRMedia.assertClose(still.image, try HDRMedia.reference(clip, transfer: "arib-std-b67", curve: .reinhard, frame: 0),
                             HDRToneMappingTests.tolerance, "HLG without primaries")
    }

    // MARK: - probe, storyboard

    func testProbeReportsTransferPrimariesAndHDR() throws {
        let clip = try HDRMedia.clip(transfer: "smpte2084", in: folder)
        let probe = try MediaProbe.run(clip)
        XCTAssertEqual(probe.colour, VideoColour(transfer: "smpte2084", primaries: "bt2020", isHDR: true))
        XCTAssertTrue(probe.json.contains("\"transfer\": \"smpte2084\", \"primaries\": \"bt2020\", \"hdr\": true"), probe.json)
        let sdr = try MediaProbe.run(Fixture.sample("beach.mp4"))
        XCTAssertFalse(sdr.colour.isHDR)
        XCTAssertTrue(sdr.json.contains("\"hdr\": false"), sdr.json)
    }

    func testAnUnknownCurveIsAStoryboardErrorNamingItsPath() {
        XCTAssertThrowsError(try Storyboard.parse("""
            {"stories": [{"id": "a", "items": [{"uri": "a.mp4", "tonemap": "aces"}]}]}
            """)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("stories[0].items[0].tonemap"), text)
            XCTAssertTrue(text.contains("\"hable\", \"mobius\", \"reinhard\", \"clip\""), text)
        }
    }

    // MARK: - Dolby Vision 8.4

    /// An iPhone's Dolby Vision profile 8.4 video is HEVC whose base layer is HLG, with a `dvvC`
    /// box naming the profile. No Dolby Vision encoder is at hand, so the clip is an HLG clip
    /// given the box an iPhone writes (profile 8, level 4, RPU and base layer present, base
    /// compatible with HLG, id 4); FFmpeg reads it (the test checks ffprobe sees it), and the
    /// story plays the HLG base layer, tone-mapped as ffmpeg maps it. The enhancement RPU NAL
    /// units a real file carries are not made here.
    func testDolbyVisionProfile84PlaysThroughItsHLGBaseLayer() throws {
        let clip = try HDRMedia.clip(transfer: "arib-std-b67", in: folder)
        let tagged = folder.file("dolby-vision-8.4.mp4")
        try Data(HDRMedia.addingDolbyVisionBox(to: [UInt8](Data(contentsOf: URL(fileURLWithPath: clip)))))
            .write(to: URL(fileURLWithPath: tagged))
        let described = String(decoding: try ExternalProgram.run(try TestPrograms.tool("ffprobe"),
                                                                 ["-v", "error", "-show_streams", tagged]), as: UTF8.self)
        XCTAssertTrue(described.contains("dv_profile=8") && described.contains("dv_bl_signal_compatibility_id=4"), described)
        let board = try HDRMedia.storyboard([tagged], folder: folder)
        let still = try StillRender.render(board, pageOffset: 0, time: 0, overlay: false).image
        HDRMedia.assertClose(still, try HDRMedia.reference(clip, transfer: "arib-std-b67", curve: .hable, frame: 0),
                             HDRToneMappingTests.tolerance, "Dolby Vision 8.4")
        XCTAssertTrue(try MediaProbe.run(tagged).colour.isHDR)
    }
}

// MARK: - HDR clips as phones make them, and ffmpeg's view of them

enum HDRMedia {
    static let size = (width: 320, height: 568)

    /// The clips, made once per run (each encode takes a few hundred ms).
    private static let made = Mutex<[String: String]>([:])
    private static let clips = ScratchFolder()

    /// A 0.5 s, 10 fps, 10-bit HEVC clip of ffmpeg's test picture, tagged BT.2020 with `transfer`, in an
    /// `hvc1` sample entry as iPhones write it.
    static func clip(transfer: String, in folder: ScratchFolder) throws -> String {
        if let path = made.withLock({ $0[transfer] }) { return path }
        let path = clips.file("hdr-\(transfer).mp4")
        try ExternalProgram.run(TestPrograms.tool("ffmpeg"), [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=\(size.width)x\(size.height):d=0.5:r=10",
            "-c:v", "libx265", "-x265-params", "log-level=error", "-pix_fmt", "yuv420p10le", "-profile:v", "main10",
            "-tag:v", "hvc1", "-color_primaries", "bt2020", "-color_trc", transfer, "-colorspace", "bt2020nc", path,
        ])
        made.withLock { $0[transfer] = path }
        return path
    }

    static func storyboard(_ clips: [String], folder: ScratchFolder, duration: Double = 0.5, curve: String? = nil) throws -> Storyboard {
        let items = clips.map { "{\"uri\": \"\($0)\"" + (curve.map { ", \"tonemap\": \"\($0)\"" } ?? "") + "}" }
        return try Storyboard.parse("""
            {"canvas": {"width": \(size.width), "height": \(size.height), "fps": 10}, "duration": \(duration),
             "stories": [{"id": "hdr", "items": [\(items.joined(separator: ", "))]}]}
            """, folder: folder.path)
    }

    /// Source frame `frame` of `clip` through ffmpeg's filters with `curve`, as RGBA.
    static func reference(_ clip: String, transfer: String, curve: ToneMapCurve, frame: Int) throws -> RGBAImage {
        let chain = "select=eq(n\\,\(frame)),zscale=tin=\(transfer):pin=bt2020:min=bt2020nc:rin=tv:t=linear:npl=100:p=bt2020,"
            + "format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=\(curve.rawValue):desat=0,zscale=t=bt709,format=gbrp,format=rgba"
        let bytes = try ExternalProgram.run(TestPrograms.tool("ffmpeg"), ["-v", "error", "-i", clip, "-vf", chain, "-frames:v", "1",
                                                             "-f", "rawvideo", "-"])
        return try image(bytes)
    }

    /// A PNG as ffmpeg decodes it.
    static func decodePNG(_ path: String) throws -> RGBAImage {
        try image(try ExternalProgram.run(TestPrograms.tool("ffmpeg"), ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgba", "-"]))
    }

    private static func image(_ bytes: Data) throws -> RGBAImage {
        guard bytes.count == size.width * size.height * 4 else {
            throw ExternalProgram.Failed(message: "ffmpeg gave \(bytes.count) bytes for a \(size.width)x\(size.height) picture")
        }
        return RGBAImage(width: size.width, height: size.height, pixels: [UInt8](bytes))
    }

    /// Every colour channel of every pixel within `tolerance` levels (alpha is not compared).
    static func assertClose(_ picture: RGBAImage, _ reference: RGBAImage, _ tolerance: Int, _ what: String,
                            file: StaticString = #filePath, line: UInt = #line) {
        guard picture.width == reference.width, picture.height == reference.height else {
            XCTFail("\(what): \(picture.width)x\(picture.height), not \(reference.width)x\(reference.height)", file: file, line: line)
            return
        }
        var worst = 0, worstAt = 0, total = 0
        for i in picture.pixels.indices where i % 4 != 3 {
            let off = abs(Int(picture.pixels[i]) - Int(reference.pixels[i]))
            total += off
            if off > worst { (worst, worstAt) = (off, i) }
        }
        let pixel = worstAt / 4
        XCTAssertLessThanOrEqual(worst, tolerance, "\(what): \(worst) levels off at (\(pixel % picture.width), "
                                 + "\(pixel / picture.width)), mean \(Double(total) / Double(picture.pixels.count * 3 / 4))",
                                 file: file, line: line)
    }

    // MARK: - A Dolby Vision box

    /// `mp4` with a `dvvC` box (Dolby Vision profile 8.4, as an iPhone writes it) added to its
    /// HEVC sample entry, every enclosing box grown to hold it. ffmpeg writes the movie box after
    /// the media data, so no chunk offset moves.
    static func addingDolbyVisionBox(to mp4: [UInt8]) throws -> [UInt8] {
        // version 1.0; profile 8 (7 bits), level 4 (6 bits), RPU, no enhancement layer, base layer;
        // base-layer compatibility id 4 (HLG) in the top 4 bits; the rest reserved zeros.
        let profile = 8, level = 4
        let rpu = 1 << 2, baseLayer = 1
        let flags: Int = (profile << 9) | (level << 3) | rpu | baseLayer
        var payload: [UInt8] = [1, 0, UInt8(flags >> 8), UInt8(flags & 0xFF), 4 << 4]
        payload += [UInt8](repeating: 0, count: 19)
        var box = bigEndian(UInt32(8 + payload.count))
        box += Array("dvvC".utf8)
        box += payload
        // The boxes down to the sample entry, and where each one's children start.
        let path: [(type: String, header: Int)] = [("moov", 8), ("trak", 8), ("mdia", 8), ("minf", 8), ("stbl", 8),
                                                   ("stsd", 16), ("hvc1", 8 + 78)]
        var bytes = mp4, parents: [Int] = [], start = 0, end = bytes.count
        for (type, header) in path {
            guard let found = child(type, in: bytes, from: start, to: end) else {
                throw ExternalProgram.Failed(message: "no \(type) box in the clip")
            }
            parents.append(found)
            start = found + header
            end = found + size(bytes, at: found)
        }
        bytes.insert(contentsOf: box, at: end)
        for parent in parents { bytes.replaceSubrange(parent..<parent + 4, with: bigEndian(UInt32(size(bytes, at: parent) + box.count))) }
        return bytes
    }

    private static func child(_ type: String, in bytes: [UInt8], from start: Int, to end: Int) -> Int? {
        var at = start
        while at + 8 <= end {
            let length = size(bytes, at: at)
            if String(decoding: bytes[at + 4..<at + 8], as: UTF8.self) == type { return at }
            guard length >= 8 else { return nil }
            at += length
        }
        return nil
    }

    private static func size(_ bytes: [UInt8], at offset: Int) -> Int {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
