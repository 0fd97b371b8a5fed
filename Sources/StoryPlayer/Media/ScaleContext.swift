import CFFmpeg

/// Owns a `SwsContext` (`sws_getCachedContext` / `sws_freeContext`).
final class ScaleContext {
    private(set) var pointer: OpaquePointer?

    init() {}

    /// Returns a context for this conversion, reusing the current one when the parameters match.
    func context(sourceWidth: Int32, sourceHeight: Int32, sourceFormat: AVPixelFormat,
                 width: Int32, height: Int32, targetFormat: AVPixelFormat = AV_PIX_FMT_RGBA) -> OpaquePointer? {
        // Plain bilinear: SWS_ACCURATE_RND and full-chroma interpolation cost 30× more for
        // differences below one level.
        pointer = sws_getCachedContext(pointer, sourceWidth, sourceHeight, sourceFormat,
                                       width, height, targetFormat, SWS_BILINEAR, nil, nil, nil)
        return pointer
    }

    func close() {
        if let pointer { sws_freeContext(pointer) }
        pointer = nil
    }

    deinit { close() }
}
