internal import CFFmpeg
import Synchronization

/// Owns a `SwsContext` (`sws_getCachedContext` / `sws_freeContext`).
final class ScaleContext {
    private(set) var pointer: OpaquePointer?

    /// Scalers allocated and not yet freed, process-wide (see `FormatContext.alive`).
    static let alive = Atomic<Int>(0)

    init() {}

    /// Returns a context for this conversion, reusing the current one when the parameters match.
    func context(sourceWidth: Int32, sourceHeight: Int32, sourceFormat: AVPixelFormat,
                 width: Int32, height: Int32, targetFormat: AVPixelFormat = AV_PIX_FMT_RGBA) -> OpaquePointer? {
        // Plain bilinear: SWS_ACCURATE_RND and full-chroma interpolation cost 30× more for
        // differences below one level.
        let had = pointer != nil
        pointer = sws_getCachedContext(pointer, sourceWidth, sourceHeight, sourceFormat,
                                       width, height, targetFormat, SWS_BILINEAR, nil, nil, nil)
        // sws_getCachedContext frees the old context when it makes a new one, and on failure.
        if had != (pointer != nil) { ScaleContext.alive.add(had ? -1 : 1, ordering: .relaxed) }
        return pointer
    }

    func close() {
        if let pointer {
            sws_freeContext(pointer)
            ScaleContext.alive.subtract(1, ordering: .relaxed)
        }
        pointer = nil
    }

    deinit { close() }
}
