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

    /// The size rule of the guess.
    static func isHD(width: Int, height: Int) -> Bool { width >= 1280 || height > 576 }

    // MARK: - Applying

    /// Sets the matrix and range of `sws` for `frame` (`sws_setColorspaceDetails`). Pixel formats
    /// swscale already knows to be full range (`yuvj*`) stay full range; RGB sources are left alone.
    /// `width`×`height` is the picture's whole size, before any crop, for the guess.
    static func apply(to sws: OpaquePointer, for frame: UnsafeMutablePointer<AVFrame>, width: Int, height: Int) {
        let format = AVPixelFormat(rawValue: frame.pointee.format)
        if let descriptor = av_pix_fmt_desc_get(format), descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 { return }
        let matrix = of(colorspace: frame.pointee.colorspace, range: frame.pointee.color_range,
                        width: width, height: height)
        var invTable: UnsafeMutablePointer<Int32>?
        var table: UnsafeMutablePointer<Int32>?
        var srcRange: Int32 = 0, dstRange: Int32 = 0, brightness: Int32 = 0, contrast: Int32 = 0, saturation: Int32 = 0
        guard sws_getColorspaceDetails(sws, &invTable, &srcRange, &table, &dstRange, &brightness, &contrast, &saturation) >= 0 else {
            return
        }
        let range = max(matrix.isFullRange ? 1 : 0, srcRange)
        sws_setColorspaceDetails(sws, sws_getCoefficients(matrix.swsColorspace), range, table, dstRange, brightness, contrast, saturation)
    }
}
