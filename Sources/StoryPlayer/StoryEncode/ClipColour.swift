internal import CFFmpeg
import Compositor
import StoryMedia

/// The YUV colour a video file (MP4, WebM) is encoded and tagged with, chosen by its size as
/// players guess it for a file they read untagged, so that one that ignores the tags still
/// shows the colours drawn: BT.709 for HD, BT.601 for SD.
///
/// HD is a frame of 720p or larger in either orientation: its shorter side 720 or more, or its
/// longer side 1280 or more (1280x720, 720x1280, 1080x1920, 1280x540 and 720x720 are HD;
/// 360x640 and 576x1024 are SD). SD is below 720 lines, as ffmpeg's and x264's conventions
/// have it, on the shorter side for a portrait frame.
///
/// All three tags follow the size, as ffmpeg's and x264's conventions and the platforms'
/// ingest expect (`smpte170m` for SD, `bt709` for HD): a file tagged half one, half the other
/// reads as a mistake to the tools that check it. BT.601's transfer is BT.709's curve, and
/// SMPTE 170M's primaries differ from sRGB's by less than a player shows; only the matrix,
/// which turns RGB into YUV, changes the picture. The range is limited (16-235), as every
/// player expects.
enum ClipColour: Equatable, Sendable {
    case bt709
    case bt601

    /// The colour of a `width`×`height` video.
    static func of(width: Int, height: Int) -> ClipColour {
        isHD(width: width, height: height) ? .bt709 : .bt601
    }

    /// The size rule above.
    static func isHD(width: Int, height: Int) -> Bool {
        min(width, height) >= 720 || max(width, height) >= 1280
    }

    /// The matrix the canvas's RGB is turned into YUV with.
    var yuvMatrix: YUVMatrix { self == .bt709 ? .bt709 : .bt601 }

    /// The same, for swscale (`sws_getCoefficients`).
    var swsColorspace: Int32 { self == .bt709 ? SWS_CS_ITU709 : SWS_CS_ITU601 }

    /// The tags: matrix, primaries and transfer.
    var matrix: AVColorSpace { self == .bt709 ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M }
    var primaries: AVColorPrimaries { self == .bt709 ? AVCOL_PRI_BT709 : AVCOL_PRI_SMPTE170M }
    var transfer: AVColorTransferCharacteristic { self == .bt709 ? AVCOL_TRC_BT709 : AVCOL_TRC_SMPTE170M }
}
