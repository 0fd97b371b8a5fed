internal import CWebP
import Compositor
import Foundation

/// The frames of an animated WebP, as libwebp's animation decoder composes them (each frame
/// blended onto or disposed from the canvas as the file says): FFmpeg 5.1 reads still WebP
/// only. The owner of a `WebPAnimDecoder` and of the file's bytes it reads from (libwebp keeps
/// a pointer to them, so they live as long as the decoder).
final class WebPAnimationDecoder {
    private let decoder: OpaquePointer
    private let bytes: UnsafeMutableRawBufferPointer
    /// The canvas every frame fills.
    let width: Int
    let height: Int
    /// Frames in the file.
    let frameCount: Int

    /// `WebPGetFeatures` (the canvas's size, refused above `maxPixels` before libwebp allocates
    /// two canvases of it), `WebPAnimDecoderOptionsInit`, `WebPAnimDecoderNew` (straight RGBA,
    /// one thread), `WebPAnimDecoderGetInfo`.
    init(_ data: Data, name: String, maxPixels: Int) throws(MediaError) {
        var features = WebPBitstreamFeatures()
        let read = data.withUnsafeBytes { WebPGetFeatures($0.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count, &features) }
        guard read == VP8_STATUS_OK else {
            throw MediaError(.decode, "cannot read the animated WebP \(name)", cause: "WebPGetFeatures: status \(read.rawValue)")
        }
        guard Int(features.width) * Int(features.height) <= maxPixels else {
            throw MediaError(.tooLarge, "the animated WebP \(name) is \(features.width)x\(features.height)",
                             cause: "more than \(maxPixels) pixels")
        }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 16)
        data.copyBytes(to: bytes)
        var options = WebPAnimDecoderOptions()
        var webp = WebPData(bytes: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), size: data.count)
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            bytes.deallocate()
            throw MediaError(.open, "cannot read the animated WebP \(name)", cause: "WebPAnimDecoderOptionsInit: libwebp's version differs")
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        guard let decoder = WebPAnimDecoderNew(&webp, &options) else {
            bytes.deallocate()
            throw MediaError(.decode, "cannot read the animated WebP \(name)", cause: "WebPAnimDecoderNew refused it (damaged or not WebP)")
        }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0, info.canvas_width > 0, info.canvas_height > 0 else {
            WebPAnimDecoderDelete(decoder)
            bytes.deallocate()
            throw MediaError(.decode, "cannot read the animated WebP \(name)", cause: "WebPAnimDecoderGetInfo failed")
        }
        (self.decoder, self.bytes) = (decoder, bytes)
        (width, height, frameCount) = (Int(info.canvas_width), Int(info.canvas_height), Int(info.frame_count))
    }

    deinit {
        WebPAnimDecoderDelete(decoder)
        bytes.deallocate()
    }

    /// The next frame, whole, in straight RGBA, and when it starts (seconds from the first);
    /// nil after the last (`WebPAnimDecoderHasMoreFrames`, `WebPAnimDecoderGetNext`, whose
    /// timestamp is when the frame ends).
    func next() throws(MediaError) -> (picture: RGBAImage, start: Double, end: Double)? {
        guard WebPAnimDecoderHasMoreFrames(decoder) != 0 else { return nil }
        var canvas: UnsafeMutablePointer<UInt8>?
        var ending: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &canvas, &ending) != 0, let canvas else {
            throw MediaError(.decode, "cannot read the animated WebP's frame \(decoded + 1)", cause: "WebPAnimDecoderGetNext failed")
        }
        let picture = RGBAImage(width: width, height: height, pixels: Array(UnsafeBufferPointer(start: canvas, count: width * height * 4)))
        let start = lastEnd
        // A frame of 10 ms or less shows for 100 ms, as browsers show it (many tools write 0).
        let given = Double(ending) / 1000 - (Double(endingSoFar) / 1000)
        endingSoFar = Int(ending)
        lastEnd = start + (given <= 0.01 ? 0.1 : given)
        decoded += 1
        return (picture, start, lastEnd)
    }

    /// When the last frame ends, its short durations lengthened; and as the file says.
    private var lastEnd = 0.0
    private var endingSoFar = 0
    private var decoded = 0
}
