internal import CFFmpeg

/// The YUV matrix and range swscale converts a picture with: as the stream is tagged, else
/// guessed from its size. swscale on its own takes every picture for limited-range BT.601.
struct ColourMatrix: Equatable, Sendable {
    /// swscale's coefficients (`SWS_CS_ITU601`, `SWS_CS_ITU709`, `SWS_CS_BT2020`, …).
    let swsColorspace: Int32
    /// Full range (0-255, JPEG) rather than limited (16-235).
    let isFullRange: Bool

    // MARK: - Choosing

    /// The matrix of a picture tagged `colorspace` and `range`, `width`×`height` in size.
    ///
    /// Untagged pictures get the guess players make (libplacebo's, which FFmpeg's libplacebo
    /// filter and mpv use): BT.709 for HD sizes (1280 wide or more, or taller than 576 lines),
    /// BT.601 below; an untagged range is limited, as in broadcast video.
    static func of(colorspace: AVColorSpace, range: AVColorRange, width: Int, height: Int) -> ColourMatrix {
        let coefficients: Int32 = switch colorspace {
        case AVCOL_SPC_BT709: SWS_CS_ITU709
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: SWS_CS_BT2020
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M: SWS_CS_ITU601
        case AVCOL_SPC_FCC: SWS_CS_FCC
        case AVCOL_SPC_SMPTE240M: SWS_CS_SMPTE240M
        default: isHD(width: width, height: height) ? SWS_CS_ITU709 : SWS_CS_ITU601
        }
        return ColourMatrix(swsColorspace: coefficients, isFullRange: range == AVCOL_RANGE_JPEG)
    }

    /// The size rule of the guess. (`ScaleContext.prepare` applies the matrix.)
    static func isHD(width: Int, height: Int) -> Bool { width >= 1280 || height > 576 }
}
