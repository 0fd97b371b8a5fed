internal import CFFmpeg
import Compositor

// MARK: - A canvas into an encoder's picture

extension Frame {
    /// Writes `image` into this picture's planes with `matrix`, limited range
    /// (`RGBAImage.writeYUV420`), when it is a `yuv420p` picture of the image's size, even on both
    /// sides: the picture every H.264 output but the 4:4:4 ones takes. False, with nothing written,
    /// for any other; the caller converts with swscale then. The planes must be writable.
    package func fill(from image: RGBAImage, matrix: YUVMatrix) -> Bool {
        withUnsafeAVFrame { frame in
            let picture = frame.pointee
            guard picture.format == AV_PIX_FMT_YUV420P.rawValue, Int(picture.width) == image.width,
                  Int(picture.height) == image.height, image.width.isMultiple(of: 2), image.height.isMultiple(of: 2),
                  let luma = picture.data.0, let blue = picture.data.1, let red = picture.data.2,
                  picture.linesize.1 == picture.linesize.2
            else { return false }
            image.writeYUV420(luma: luma, lumaStride: Int(picture.linesize.0), blueDifference: blue, redDifference: red,
                              chromaStride: Int(picture.linesize.1), matrix: matrix)
            return true
        }
    }
}
