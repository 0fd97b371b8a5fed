internal import CFFmpeg

// MARK: - A decoded photo's embedded ICC profile

extension Frame {
    /// The ICC profile the decoder found in the picture (`AV_FRAME_DATA_ICC_PROFILE`: a JPEG's
    /// APP2 `ICC_PROFILE`, a PNG's `iCCP`); nil without one, or when it is not an RGB profile.
    var embeddedColourProfile: ColourProfile? {
        withUnsafeAVFrame { frame in
            guard let side = av_frame_get_side_data(frame, AV_FRAME_DATA_ICC_PROFILE),
                  let data = side.pointee.data, side.pointee.size > 0 else { return nil }
            return ColourProfile(icc: UnsafeRawBufferPointer(start: data, count: Int(side.pointee.size)))
        }
    }

    /// The picture as sRGB: converted at its own size to RGB (RGBA when it has alpha) with the
    /// stream's matrix (`sws_scale`), then from `profile` to sRGB by Little CMS. The canvas
    /// conversion after it scales RGB, so the colours are converted once, at full resolution.
    func convertedToSRGB(from profile: ColourProfile) throws(MediaError) -> Frame {
        let hasAlpha = self.hasAlpha
        let width = self.width, height = self.height
        let converted = Frame()
        let allocated = converted.allocatePicture(width: width, height: height, format: hasAlpha ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24)
        guard allocated >= 0 else { throw MediaError(.convert, "cannot allocate a \(width)x\(height) picture", averror: allocated) }
        converted.copyProperties(from: self)

        let scaler = ScaleContext()
        defer { scaler.close() }
        guard scaler.prepare(for: self, fullWidth: Int(width), fullHeight: Int(height), width: width, height: height,
                             targetFormat: converted.pixelFormat)
        else { throw MediaError(.convert, "cannot convert the photo to RGB for its colour profile") }
        let lines = scaler.scale(self, into: converted)
        guard lines > 0 else { throw MediaError(.convert, "cannot convert the photo to RGB", averror: lines) }
        guard let (rows, stride) = converted.plane(0) else { preconditionFailure("an allocated picture has rows") }
        profile.convertToSRGB(rows, width: Int(width), height: Int(height), stride: stride, hasAlpha: hasAlpha)
        return converted
    }
}
