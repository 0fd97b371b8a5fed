internal import CFFmpeg
import Compositor
import StoryModel

/// Turns decoded pictures into canvas-size RGBA: owns swscale's context and the padded frame it
/// writes turned or odd-width pictures into (`sws_getCachedContext` / `sws_freeContext`,
/// `av_frame_get_buffer` / `av_frame_free`).
///
/// One per thread that converts: a playing item's converter runs on a thread of its own beside
/// the decode thread (`DecodeThread`), so decoding and converting overlap; posters and probes
/// use their decoder's (`MediaDecoder.rgba`).
package final class PictureConverter {
    /// swscale's context, and its padded output for pictures that are turned or of odd width:
    /// its SIMD code writes whole vector widths, past the end of a row whose width is not a
    /// multiple of 16 pixels.
    private let scaler = ScaleContext()
    private let scaled = Frame()
    /// Whether swscale may write straight into a picture's storage (see `rgba`); tests turn it
    /// off to compare with the padded frame.
    var convertsInPlace = true
    /// HDR pictures are tone-mapped to SDR before they are scaled; SDR ones pass untouched.
    let toneMapper = HDRToneMapper()
    /// The curve HDR pictures are tone-mapped with (the item's `tonemap`).
    package var toneMapCurve: ToneMapCurve {
        get { toneMapper.curve }
        set { toneMapper.curve = newValue }
    }

    package init() {}

    /// Frees the scaler and its frame now.
    package func close() {
        scaler.close()
        scaled.close()
        toneMapper.close()
    }

    // MARK: - Conversion to the canvas

    /// The picture as RGBA at `width`×`height`: flipped and turned upright, stretched by the sample aspect
    /// ratio, scaled to cover the canvas with its aspect ratio kept, and centre-cropped.
    /// `spare` is a picture the player no longer shows; its storage is written over when it is
    /// free to be, which spares an 8 MB allocation (and its page faults) per frame at 1080x1920.
    /// `keepsAlpha` leaves a picture's transparency as it is (a sticker's); a story's picture is
    /// shown opaque.
    package func rgba(_ picture: DecodedPicture, width: Int, height: Int, reusing spare: consuming RGBAImage? = nil,
                      keepsAlpha: Bool = false) throws(MediaError) -> RGBAImage {
        let frame = try toneMapper.toneMapped(picture.frame)
        let quarterTurns = picture.quarterTurns, mirrored = picture.orientation.mirrored
        let turned = quarterTurns % 2 == 1
        // Work in the picture's stored orientation, then turn the result.
        let targetWidth = turned ? height : width
        let targetHeight = turned ? width : height
        let frameAspect = frame.sampleAspectRatio
        let sar = frameAspect.num > 0 && frameAspect.den > 0 ? av_q2d(frameAspect) : picture.sampleAspectRatio
        let sourceWidth = Double(frame.width), sourceHeight = Double(frame.height)
        let scale = max(Double(targetWidth) / (sourceWidth * sar), Double(targetHeight) / sourceHeight)
        let cropWidth = min(sourceWidth, Double(targetWidth) / (scale * sar))
        let cropHeight = min(sourceHeight, Double(targetHeight) / scale)
        let left = Int(((sourceWidth - cropWidth) / 2).rounded())
        let top = Int(((sourceHeight - cropHeight) / 2).rounded())
        let cropped = frame.crop(left: left, right: max(0, Int(sourceWidth) - left - Int(cropWidth.rounded())),
                                 top: top, bottom: max(0, Int(sourceHeight) - top - Int(cropHeight.rounded())))
        guard cropped >= 0 else { throw MediaError(.convert, "cannot crop the picture", averror: cropped) }

        let sourceFormat = frame.pixelFormat
        guard scaler.prepare(for: frame, fullWidth: Int(sourceWidth), fullHeight: Int(sourceHeight),
                             width: Int32(targetWidth), height: Int32(targetHeight))
        else {
            let name = av_get_pix_fmt_name(sourceFormat).map { String(cString: $0) } ?? "unknown"
            throw MediaError(.convert, "cannot convert pixel format \(name) to RGBA")
        }
        var image: RGBAImage
        var lines: Int32 = 0
        if convertsInPlace, quarterTurns % 4 == 0, !mirrored, targetWidth % 8 == 0 {
            // The usual case: swscale writes the picture's own rows, with no padded frame and
            // no copy. (Its SIMD converters write blocks of 8 pixels, so a row of a multiple of
            // 8 is written exactly; the picture keeps slack after the last row all the same.)
            image = RGBAImage(width: targetWidth, height: targetHeight, slack: RGBAImage.writerSlack,
                              reusing: spare.take()) { target in
                lines = scaler.scale(frame, into: target, stride: targetWidth * 4)
            }
        } else {
            let output = try scaledFrame(width: targetWidth, height: targetHeight)
            guard let (rows, stride) = output.plane(0) else { preconditionFailure("an allocated picture has rows") }
            lines = scaler.scale(frame, into: rows, stride: stride)
            let turned = RGBAImage.turnedSize(width: targetWidth, height: targetHeight, quarterTurns: quarterTurns)
            image = RGBAImage(width: turned.width, height: turned.height, slack: 0, reusing: spare.take()) { target in
                RGBAImage.turn(rows, stride: stride, width: targetWidth, height: targetHeight,
                               quarterTurns: quarterTurns, mirrored: mirrored, into: target)
            }
        }
        guard lines > 0 else { throw MediaError(.convert, "cannot convert the picture", averror: lines) }
        if Frame.pixelFormatHasAlpha(sourceFormat) && !keepsAlpha {
            image.flattenAlpha()
        }
        return image
    }

    /// The padded RGBA frame swscale writes into, (re)allocated when the size changes.
    private func scaledFrame(width: Int, height: Int) throws(MediaError) -> Frame {
        if scaled.width != Int32(width) || scaled.height != Int32(height) || scaled.plane(0) == nil {
            let status = scaled.allocatePicture(width: Int32(width), height: Int32(height), format: AV_PIX_FMT_RGBA)
            guard status >= 0 else { throw MediaError(.convert, "cannot allocate a \(width)x\(height) picture", averror: status) }
        }
        return scaled
    }
}
