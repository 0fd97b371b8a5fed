import CHEIF
import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

/// HDR photos: a camera's or an Android phone's `.hif`/`.heic` is 10-bit HEVC whose `nclx` box
/// says PQ or HLG and BT.2020, with no ICC profile. It is shown tone-mapped to SDR, as the same
/// picture in an HDR video is. Before, libheif's 8-bit RGB of the signal was shown as it was:
/// washed out, 14 (HLG) and 19 (PQ) levels off on average and up to 255, and `probe` named no
/// transfer.
final class HDRPhotoTests: XCTestCase {
    let folder = ScratchFolder()

    /// The first picture of `HDRMedia`'s clip (decoded by ffmpeg, 10-bit 4:2:0), written into a
    /// HEIC with the clip's own tags. The still must match ffmpeg's `zscale,tonemap,zscale` of
    /// the photo's pixels (libheif's decoding of it, given to ffmpeg as raw 10-bit planes) as
    /// closely as a video's frames match it.
    func testPQAndHLGPhotosAreToneMappedAsFFmpegMapsTheirPixels() throws {
        for (transfer, code) in [("smpte2084", 16), ("arib-std-b67", 18)] {
            let clip = try HDRMedia.clip(transfer: transfer, in: folder)
            let photo = try hdrPhoto(of: clip, transfer: code)
            let board = try HDRMedia.storyboard([photo], folder: folder)
            let still = try StillRender.render(board, pageOffset: 0, time: 0, overlay: false).image
            let reference = try toneMapped(photo, transfer: transfer)
            HDRMedia.assertClose(still, reference, HDRToneMappingTests.tolerance, "\(transfer) photo")

            let probe = try MediaProbe.run(photo)
            XCTAssertEqual(probe.colour, VideoColour(transfer: transfer, primaries: "bt2020", isHDR: true), transfer)
            XCTAssertTrue(probe.text.contains("colour       \(transfer) transfer, bt2020 primaries, HDR"), probe.text)
        }
    }

    /// The same photo's render (decode and convert threads) is tone-mapped too.
    func testARenderedHDRPhotoIsToneMapped() throws {
        let clip = try HDRMedia.clip(transfer: "smpte2084", in: folder)
        let photo = try hdrPhoto(of: clip, transfer: 16)
        let board = try HDRMedia.storyboard([photo], folder: folder, duration: 0.3)
        let result = try render(board) { $0.overlay = false }
        let frame = try HDRMedia.decodePNG(result.folder.file("frame-000002.png"))
        let reference = try toneMapped(photo, transfer: "smpte2084")
        HDRMedia.assertClose(frame, reference, HDRToneMappingTests.tolerance, "rendered PQ photo")
    }

    // MARK: - Photos

    /// The clip's first picture as a lossless 10-bit 4:2:0 HEIC tagged BT.2020 (primaries and
    /// matrix), limited range, and `transfer` (H.273: 16 PQ, 18 HLG).
    private func hdrPhoto(of clip: String, transfer: Int) throws -> String {
        let (width, height) = (HDRMedia.size.width, HDRMedia.size.height)
        let raw = try ExternalProgram.run(TestPrograms.tool("ffmpeg"), ["-v", "error", "-i", clip, "-frames:v", "1",
                                                            "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-"])
        let bytes = [UInt8](raw)
        let lumaBytes = width * height * 2, chromaBytes = (width / 2) * (height / 2) * 2
        XCTAssertEqual(bytes.count, lumaBytes + 2 * chromaBytes)
        let planes = [
            HEIFWriter.Plane(channel: heif_channel_Y, width: width, height: height, depth: 10, bytesPerRow: width * 2,
                             bytes: Array(bytes[0..<lumaBytes])),
            HEIFWriter.Plane(channel: heif_channel_Cb, width: width / 2, height: height / 2, depth: 10, bytesPerRow: width,
                             bytes: Array(bytes[lumaBytes..<lumaBytes + chromaBytes])),
            HEIFWriter.Plane(channel: heif_channel_Cr, width: width / 2, height: height / 2, depth: 10, bytesPerRow: width,
                             bytes: Array(bytes[(lumaBytes + chromaBytes)...])),
        ]
        let path = folder.file("hdr-\(transfer).heic")
        try HEIFWriter.write(to: path, width: width, height: height, colourspace: heif_colorspace_YCbCr, chroma: heif_chroma_420,
                             planes: planes, primaries: 9, transfer: transfer, matrix: 9, fullRange: false, lossless: false)
        return path
    }

    /// ffmpeg's tone mapping (hable) of the photo's pixels as libheif decodes them, as RGBA.
    private func toneMapped(_ photo: String, transfer: String) throws -> RGBAImage {
        let planes = folder.file("decoded-\(transfer).yuv")
        try HEIFWriter.decodedPlanes10(photo).write(to: URL(fileURLWithPath: planes))
        let chain = "zscale=tin=\(transfer):pin=bt2020:min=bt2020nc:rin=tv:t=linear:npl=100:p=bt2020,"
            + "format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709,format=gbrp,format=rgba"
        let size = "\(HDRMedia.size.width)x\(HDRMedia.size.height)"
        let bytes = try ExternalProgram.run(TestPrograms.tool("ffmpeg"), ["-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p10le",
                                                                      "-s", size, "-i", planes, "-vf", chain, "-frames:v", "1",
                                                                      "-f", "rawvideo", "-"])
        return RGBAImage(width: HDRMedia.size.width, height: HDRMedia.size.height, pixels: [UInt8](bytes))
    }
}
