internal import CFFmpeg

// MARK: - A decoded photo's embedded ICC profile

extension Frame {
    /// The ICC profile the decoder found in the picture (`AV_FRAME_DATA_ICC_PROFILE`: a JPEG's
    /// APP2 `ICC_PROFILE`, a PNG's `iCCP`); nil without one, or when it is not an RGB profile.
    var embeddedColourProfile: ColourProfile? {
        guard let frame = pointer, let side = av_frame_get_side_data(frame, AV_FRAME_DATA_ICC_PROFILE),
              let data = side.pointee.data, side.pointee.size > 0 else { return nil }
        return ColourProfile(icc: UnsafeRawBufferPointer(start: data, count: Int(side.pointee.size)))
    }

    /// The picture as sRGB: converted at its own size to RGB (RGBA when it has alpha) with the
    /// stream's matrix (`sws_scale`), then from `profile` to sRGB by Little CMS. The canvas
    /// conversion after it scales RGB, so the colours are converted once, at full resolution.
    func convertedToSRGB(from profile: ColourProfile) throws(MediaError) -> Frame {
        guard let source = pointer else { preconditionFailure("converting a freed frame") }
        let sourceFormat = AVPixelFormat(rawValue: source.pointee.format)
        let hasAlpha = av_pix_fmt_desc_get(sourceFormat).map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 } ?? false
        let width = source.pointee.width, height = source.pointee.height
        let converted = Frame()
        guard let target = converted.pointer else { preconditionFailure("a new frame has storage") }
        target.pointee.width = width
        target.pointee.height = height
        target.pointee.format = (hasAlpha ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24).rawValue
        let allocated = av_frame_get_buffer(target, 64)
        guard allocated >= 0 else { throw MediaError(.convert, "cannot allocate a \(width)x\(height) picture", averror: allocated) }
        av_frame_copy_props(target, source)

        let scaler = ScaleContext()
        defer { scaler.close() }
        guard let sws = scaler.context(sourceWidth: width, sourceHeight: height, sourceFormat: sourceFormat,
                                       width: width, height: height, targetFormat: AVPixelFormat(rawValue: target.pointee.format))
        else { throw MediaError(.convert, "cannot convert the photo to RGB for its colour profile") }
        ColourMatrix.apply(to: sws, for: source, width: Int(width), height: Int(height))
        let lines = withUnsafePointer(to: source.pointee.data) { sourceData in
            withUnsafePointer(to: source.pointee.linesize) { sourceLines in
                withUnsafePointer(to: target.pointee.data) { targetData in
                    withUnsafePointer(to: target.pointee.linesize) { targetLines in
                        sws_scale(sws, UnsafeRawPointer(sourceData).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                                  UnsafeRawPointer(sourceLines).assumingMemoryBound(to: Int32.self), 0, height,
                                  UnsafeRawPointer(targetData).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                                  UnsafeRawPointer(targetLines).assumingMemoryBound(to: Int32.self))
                    }
                }
            }
        }
        guard lines > 0 else { throw MediaError(.convert, "cannot convert the photo to RGB", averror: lines) }
        profile.convertToSRGB(target.pointee.data.0!, width: Int(width), height: Int(height),
                              stride: Int(target.pointee.linesize.0), hasAlpha: hasAlpha)
        return converted
    }
}
