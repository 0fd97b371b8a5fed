package import CFFmpeg
import Synchronization

/// Owns a `SwsContext` (`sws_getCachedContext` / `sws_freeContext`). Set up for a conversion
/// with `prepare`, then run with one of the `scale` methods; its pointer does not leave it.
package final class ScaleContext {
    private var pointer: OpaquePointer?

    /// Scalers allocated and not yet freed, process-wide (see `FormatContext.alive`).
    package static let alive = Atomic<Int>(0)

    package init() {}

    /// Sets up a context for this conversion (`sws_getCachedContext`), reusing the current one
    /// when the parameters match; false when swscale cannot make the conversion.
    private func context(sourceWidth: Int32, sourceHeight: Int32, sourceFormat: AVPixelFormat,
                         width: Int32, height: Int32, targetFormat: AVPixelFormat) -> OpaquePointer? {
        let had = pointer != nil
        if FFmpegFaults.injected(.scaleContext) != nil {
            // As swscale fails: the old context is freed and none is left.
            close()
            return nil
        }
        // Plain bilinear: SWS_ACCURATE_RND and full-chroma interpolation cost 30× more for
        // differences below one level.
        pointer = sws_getCachedContext(pointer, sourceWidth, sourceHeight, sourceFormat,
                                       width, height, targetFormat, SWS_BILINEAR, nil, nil, nil)
        // sws_getCachedContext frees the old context when it makes a new one, and on failure.
        if had != (pointer != nil) { ScaleContext.alive.add(had ? -1 : 1, ordering: .relaxed) }
        return pointer
    }

    /// Sets up the conversion of `source` (as it is now: cropped, if it was) to `width`×`height`
    /// of `targetFormat`, with the YUV matrix and range of `source` (`ColourMatrix`; `fullWidth`×
    /// `fullHeight` is its size before any crop, for the guess of an untagged one). False when
    /// swscale cannot convert its pixel format.
    func prepare(for source: Frame, fullWidth: Int, fullHeight: Int, width: Int32, height: Int32,
                 targetFormat: AVPixelFormat = AV_PIX_FMT_RGBA) -> Bool {
        guard let sws = context(sourceWidth: source.width, sourceHeight: source.height, sourceFormat: source.pixelFormat,
                                width: width, height: height, targetFormat: targetFormat) else { return false }
        applyColourMatrix(sws, for: source, width: fullWidth, height: fullHeight)
        return true
    }

    /// `sws_scale` of the whole of `source` into one plane, `target`, whose rows are `stride`
    /// bytes apart, as `prepare` set up: the number of rows written, or a negative AVERROR code.
    func scale(_ source: Frame, into target: UnsafeMutablePointer<UInt8>, stride: Int) -> Int32 {
        guard let sws = pointer else { preconditionFailure("scaling before prepare()") }
        var targetData: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?,
                         UnsafeMutablePointer<UInt8>?) = (target, nil, nil, nil)
        var targetLines: (Int32, Int32, Int32, Int32) = (Int32(stride), 0, 0, 0)
        return source.withUnsafeAVFrame { frame in
            withUnsafePointer(to: frame.pointee.data) { sourceData in
                withUnsafePointer(to: frame.pointee.linesize) { sourceLines in
                    withUnsafeMutablePointer(to: &targetData) { targetData in
                        withUnsafeMutablePointer(to: &targetLines) { targetLines in
                            FFmpegFaults.injected(.scale) ?? sws_scale(sws,
                                      UnsafeRawPointer(sourceData).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                                      UnsafeRawPointer(sourceLines).assumingMemoryBound(to: Int32.self),
                                      0, frame.pointee.height,
                                      UnsafeMutableRawPointer(targetData).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                                      UnsafeMutableRawPointer(targetLines).assumingMemoryBound(to: Int32.self))
                        }
                    }
                }
            }
        }
    }

    /// `sws_scale` of the whole of `source` into the planes of `target` (allocated), as
    /// `prepare` set up: the number of rows written, or a negative AVERROR code.
    func scale(_ source: Frame, into target: Frame) -> Int32 {
        guard let sws = pointer else { preconditionFailure("scaling before prepare()") }
        return source.withUnsafeAVFrame { source in
            target.withUnsafeAVFrame { target in
                withUnsafePointer(to: source.pointee.data) { sourceData in
                    withUnsafePointer(to: source.pointee.linesize) { sourceLines in
                        withUnsafePointer(to: target.pointee.data) { targetData in
                            withUnsafePointer(to: target.pointee.linesize) { targetLines in
                                FFmpegFaults.injected(.scale) ?? sws_scale(sws,
                                          UnsafeRawPointer(sourceData).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                                          UnsafeRawPointer(sourceLines).assumingMemoryBound(to: Int32.self), 0, source.pointee.height,
                                          UnsafeRawPointer(targetData).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                                          UnsafeRawPointer(targetLines).assumingMemoryBound(to: Int32.self))
                            }
                        }
                    }
                }
            }
        }
    }

    /// RGBA rows (`width`×`height`, packed) into `target`'s planes at its own size and pixel
    /// format (the MP4's frames), YUV by `matrix` (`SWS_CS_ITU709`, `SWS_CS_ITU601`), limited
    /// range: `sws_getCachedContext` and `sws_scale`. The number of rows written, or a negative
    /// AVERROR code.
    package func scale(rgba: UnsafePointer<UInt8>, width: Int32, height: Int32, into target: Frame, matrix: Int32) -> Int32 {
        guard let sws = context(sourceWidth: width, sourceHeight: height, sourceFormat: AV_PIX_FMT_RGBA,
                                width: target.width, height: target.height, targetFormat: target.pixelFormat)
        else { return cffmpeg_averror(EINVAL) }
        // Set on every frame (a few table entries): a context swscale remade would otherwise
        // convert with its default, BT.601.
        applyTargetMatrix(sws, matrix)
        var source: [UnsafePointer<UInt8>?] = [rgba, nil, nil, nil]
        var stride: [Int32] = [width * 4, 0, 0, 0]
        return target.withUnsafeAVFrame { frame in
            withUnsafeMutablePointer(to: &frame.pointee.data) { data in
                withUnsafeMutablePointer(to: &frame.pointee.linesize) { lines in
                    FFmpegFaults.injected(.scale) ?? sws_scale(sws, &source, &stride, 0, height,
                        UnsafeMutableRawPointer(data).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                        UnsafeMutableRawPointer(lines).assumingMemoryBound(to: Int32.self))
                }
            }
        }
    }

    /// Sets the matrix and range of `sws` for `frame` (`sws_setColorspaceDetails`). Pixel formats
    /// swscale already knows to be full range (`yuvj*`) stay full range; RGB sources are left alone.
    /// `width`×`height` is the picture's whole size, before any crop, for the guess.
    private func applyColourMatrix(_ sws: OpaquePointer, for frame: Frame, width: Int, height: Int) {
        if let descriptor = av_pix_fmt_desc_get(frame.pixelFormat), descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 { return }
        let matrix = ColourMatrix.of(colorspace: frame.colourSpace, range: frame.colourRange, width: width, height: height)
        var invTable: UnsafeMutablePointer<Int32>?
        var table: UnsafeMutablePointer<Int32>?
        var srcRange: Int32 = 0, dstRange: Int32 = 0, brightness: Int32 = 0, contrast: Int32 = 0, saturation: Int32 = 0
        guard sws_getColorspaceDetails(sws, &invTable, &srcRange, &table, &dstRange, &brightness, &contrast, &saturation) >= 0 else {
            return
        }
        let range = max(matrix.isFullRange ? 1 : 0, srcRange)
        sws_setColorspaceDetails(sws, sws_getCoefficients(matrix.swsColorspace), range, table, dstRange, brightness, contrast, saturation)
    }

    /// Sets the matrix RGB is turned into YUV with (`sws_setColorspaceDetails`' `table`, the
    /// target's), keeping the rest as swscale chose it.
    private func applyTargetMatrix(_ sws: OpaquePointer, _ matrix: Int32) {
        var invTable: UnsafeMutablePointer<Int32>?
        var table: UnsafeMutablePointer<Int32>?
        var srcRange: Int32 = 0, dstRange: Int32 = 0, brightness: Int32 = 0, contrast: Int32 = 0, saturation: Int32 = 0
        guard sws_getColorspaceDetails(sws, &invTable, &srcRange, &table, &dstRange, &brightness, &contrast, &saturation) >= 0 else {
            return
        }
        sws_setColorspaceDetails(sws, invTable, srcRange, sws_getCoefficients(matrix), dstRange, brightness, contrast, saturation)
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
