package import CFFmpeg

// MARK: - What a frame says, as Swift values

extension Frame {
    var width: Int32 {
        get { withUnsafeAVFrame { $0.pointee.width } }
        set { withUnsafeAVFrame { $0.pointee.width = newValue } }
    }
    var height: Int32 {
        get { withUnsafeAVFrame { $0.pointee.height } }
        set { withUnsafeAVFrame { $0.pointee.height = newValue } }
    }
    /// An `AVPixelFormat` for a picture, an `AVSampleFormat` for sound (`format`).
    var format: Int32 {
        get { withUnsafeAVFrame { $0.pointee.format } }
        set { withUnsafeAVFrame { $0.pointee.format = newValue } }
    }
    var pixelFormat: AVPixelFormat { AVPixelFormat(rawValue: format) }
    /// The presentation timestamp an encoder stamps its packet with (`pts`).
    package var pts: Int64 {
        get { withUnsafeAVFrame { $0.pointee.pts } }
        set { withUnsafeAVFrame { $0.pointee.pts = newValue } }
    }
    /// The decoder's best guess of the presentation timestamp (`best_effort_timestamp`).
    var bestEffortTimestamp: Int64 { withUnsafeAVFrame { $0.pointee.best_effort_timestamp } }
    /// The picture's own pixel aspect ratio; 0/1 when it does not say.
    var sampleAspectRatio: AVRational { withUnsafeAVFrame { $0.pointee.sample_aspect_ratio } }

    // Colour tags.
    var colourTransfer: AVColorTransferCharacteristic {
        get { withUnsafeAVFrame { $0.pointee.color_trc } }
        set { withUnsafeAVFrame { $0.pointee.color_trc = newValue } }
    }
    var colourPrimaries: AVColorPrimaries {
        get { withUnsafeAVFrame { $0.pointee.color_primaries } }
        set { withUnsafeAVFrame { $0.pointee.color_primaries = newValue } }
    }
    var colourSpace: AVColorSpace {
        get { withUnsafeAVFrame { $0.pointee.colorspace } }
        set { withUnsafeAVFrame { $0.pointee.colorspace = newValue } }
    }
    var colourRange: AVColorRange {
        get { withUnsafeAVFrame { $0.pointee.color_range } }
        set { withUnsafeAVFrame { $0.pointee.color_range = newValue } }
    }

    /// Whether the picture's pixel format has an alpha channel (`av_pix_fmt_desc_get`).
    var hasAlpha: Bool { Frame.pixelFormatHasAlpha(pixelFormat) }

    static func pixelFormatHasAlpha(_ format: AVPixelFormat) -> Bool {
        av_pix_fmt_desc_get(format).map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 } ?? false
    }

    // Sound.
    package var sampleCount: Int32 {
        get { withUnsafeAVFrame { $0.pointee.nb_samples } }
        set { withUnsafeAVFrame { $0.pointee.nb_samples = newValue } }
    }
    var sampleRate: Int32 { withUnsafeAVFrame { $0.pointee.sample_rate } }
    /// The channels, sample format and rate a resampler is set up for (`ResampleContext`).
    var soundLayout: SoundLayout {
        withUnsafeAVFrame { SoundLayout(layout: $0.pointee.ch_layout, format: AVSampleFormat($0.pointee.format), rate: $0.pointee.sample_rate) }
    }

    /// Plane `index`: its first row and the bytes from one row to the next; nil when the frame
    /// has no such plane (no buffer yet, or a format with fewer planes).
    package func plane(_ index: Int) -> (rows: UnsafeMutablePointer<UInt8>, stride: Int)? {
        withUnsafeAVFrame { frame in
            let rows = withUnsafeBytes(of: frame.pointee.data) { $0.load(fromByteOffset: index * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride,
                                                                             as: UnsafeMutablePointer<UInt8>?.self) }
            let stride = withUnsafeBytes(of: frame.pointee.linesize) { $0.load(fromByteOffset: index * MemoryLayout<Int32>.stride, as: Int32.self) }
            return rows.map { ($0, Int(stride)) }
        }
    }

    /// How the decoded picture itself says it is turned (`PictureOrientation.of`): a JPEG's EXIF.
    var orientation: PictureOrientation? { withUnsafeAVFrame { PictureOrientation.of($0) } }

    // MARK: - Storage

    /// `av_frame_get_buffer` for a picture of this size and pixel format, rows aligned to 64
    /// bytes: 0, or a negative AVERROR code.
    package func allocatePicture(width: Int32, height: Int32, format: AVPixelFormat) -> Int32 {
        withUnsafeAVFrame { frame in
            av_frame_unref(frame)
            frame.pointee.width = width
            frame.pointee.height = height
            frame.pointee.format = format.rawValue
            return FFmpegFaults.injected(.frameBuffer) ?? av_frame_get_buffer(frame, 64)
        }
    }

    /// `av_frame_get_buffer` for `samples` samples of float stereo at `rate`: planar (AAC), or
    /// interleaved in one plane (libopus takes no other).
    package func allocateStereoSound(samples: Int32, rate: Int32, interleaved: Bool = false) -> Int32 {
        withUnsafeAVFrame { frame in
            frame.pointee.nb_samples = samples
            frame.pointee.format = (interleaved ? AV_SAMPLE_FMT_FLT : AV_SAMPLE_FMT_FLTP).rawValue
            frame.pointee.sample_rate = rate
            av_channel_layout_default(&frame.pointee.ch_layout, 2)
            return FFmpegFaults.injected(.frameBuffer) ?? av_frame_get_buffer(frame, 0)
        }
    }

    /// `av_frame_make_writable`: the buffers become this frame's alone (an encoder may still
    /// hold the last ones). 0, or a negative AVERROR code.
    package func makeWritable() -> Int32 {
        withUnsafeAVFrame { FFmpegFaults.injected(.makeWritable) ?? av_frame_make_writable($0) }
    }

    /// The value a filter left in the frame's metadata under `key` (`av_dict_get`), if any: what
    /// ebur128 measured, for the loudness meter.
    package func metadata(_ key: String) -> String? {
        withUnsafeAVFrame { frame in
            av_dict_get(frame.pointee.metadata, key, nil, 0).map { String(cString: $0.pointee.value) }
        }
    }

    /// `av_frame_unref`.
    func unref() { withUnsafeAVFrame { av_frame_unref($0) } }

    /// `av_frame_copy_props` from `source`: timestamps, colour tags, side data.
    func copyProperties(from source: Frame) {
        withUnsafeAVFrame { target in source.withUnsafeAVFrame { _ = av_frame_copy_props(target, $0) } }
    }

    /// Crops the picture by this many pixels on each side (`av_frame_apply_cropping`,
    /// unaligned: exact to the pixel); 0, or a negative AVERROR code.
    func crop(left: Int, right: Int, top: Int, bottom: Int) -> Int32 {
        withUnsafeAVFrame { frame in
            frame.pointee.crop_left = numericCast(left)
            frame.pointee.crop_right = numericCast(right)
            frame.pointee.crop_top = numericCast(top)
            frame.pointee.crop_bottom = numericCast(bottom)
            return FFmpegFaults.injected(.crop) ?? av_frame_apply_cropping(frame, Int32(AV_FRAME_CROP_UNALIGNED))
        }
    }
}

/// The channels, sample format and rate of decoded sound.
struct SoundLayout {
    var layout: AVChannelLayout
    var format: AVSampleFormat
    var rate: Int32
}
