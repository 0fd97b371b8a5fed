import CRasterSupport

// MARK: - The canvas as an encoder's picture

/// The matrix that turns RGB into YUV, by its red and blue weights (`kr`, `kb`; green's is the
/// rest), for limited range: Y 16-235, Cb and Cr 16-240.
public struct YUVMatrix: Sendable, Equatable {
    public let kr: Double
    public let kb: Double

    /// ITU-R BT.709, for HD video.
    public static let bt709 = YUVMatrix(kr: 0.2126, kb: 0.0722)
    /// ITU-R BT.601 (SMPTE 170M), for SD video.
    public static let bt601 = YUVMatrix(kr: 0.299, kb: 0.114)

    /// The weights in the fixed point `raster_rgba_to_yuv420` takes (its header says which).
    var fixedPoint: raster_yuv_matrix {
        let kg = 1 - kr - kb
        let luma = 219.0 / 255.0 * 32768, chroma = 224.0 / 255.0 * 32768
        func fixed(_ weight: Double, _ scale: Double) -> Int32 { Int32((weight * scale).rounded()) }
        return raster_yuv_matrix(
            luma: (fixed(kr, luma), fixed(kg, luma), fixed(kb, luma)),
            blue_difference: (fixed(-kr / (2 * (1 - kb)), chroma), fixed(-kg / (2 * (1 - kb)), chroma), fixed(0.5, chroma)),
            red_difference: (fixed(0.5, chroma), fixed(-kg / (2 * (1 - kr)), chroma), fixed(-kb / (2 * (1 - kr)), chroma)))
    }
}

extension RGBAImage {
    /// Writes the picture as limited-range YUV 4:2:0 planes with `matrix`
    /// (`raster_rgba_to_yuv420`): luma per pixel, each chroma sample from the mean of its 2x2
    /// block (the chroma swscale's bilinear conversion makes, within a level, at a third of
    /// its time). Alpha is ignored. Width and height must be even; `luma` has `height` rows
    /// `lumaStride` bytes apart, `blueDifference` and `redDifference` `height / 2` rows
    /// `chromaStride` apart.
    public func writeYUV420(luma: UnsafeMutablePointer<UInt8>, lumaStride: Int,
                            blueDifference: UnsafeMutablePointer<UInt8>, redDifference: UnsafeMutablePointer<UInt8>,
                            chromaStride: Int, matrix: YUVMatrix) {
        precondition(width.isMultiple(of: 2) && height.isMultiple(of: 2), "4:2:0 needs an even width and height")
        precondition(lumaStride >= width && chromaStride >= width / 2, "plane rows shorter than the picture's")
        pixels.withUnsafeBufferPointer { rgba in
            raster_rgba_to_yuv420(rgba.baseAddress!, Int32(width), Int32(height), luma, Int32(lumaStride),
                                  blueDifference, redDifference, Int32(chromaStride), matrix.fixedPoint)
        }
    }
}
