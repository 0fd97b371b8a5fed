import CFFmpeg
import Compositor

/// Limits that protect the process from hostile or broken media.
public struct DecodeLimits: Sendable {
    /// The most pixels a picture may have (width × height). A 16000×16000 image fails with a
    /// clear error instead of allocating a gigabyte.
    public var maxPixels: Int = 8192 * 8192
    /// Decoder threads per stream.
    public var decoderThreads: Int = 1
    /// Converted pictures a decode thread may hold ahead of the one shown (memory: each is one
    /// canvas, 8 MB at 1080x1920). The next picture waits in this queue until its time, and the
    /// thread converts only when there is room, so one is enough to overlap decoding with the
    /// render: alternating runs at 720x1280 were as fast as with two.
    public var queuedPictures: Int = 1
    /// Waiting limits for network sources.
    public var timeouts = Timeouts()
    /// The storyboard's `protocols`, narrowing each source's own list.
    public var protocols: [String]?

    public init() {}
}

/// A decoded picture with its presentation time, still in the source's pixel format.
final class DecodedPicture {
    let frame: Frame
    /// Seconds from the stream's start.
    let time: Double

    init(frame: Frame, time: Double) {
        self.frame = frame
        self.time = time
    }
}

/// The demuxer, decoder and scaler for one play of one item.
///
/// Built fresh by every `play()`, and freed whole by `close()` (every `stop()`): nothing is
/// reused from an earlier play of the same item.
final class MediaDecoder {
    private let format: FormatContext
    private let codec: CodecContext
    private let packet = Packet()
    private let scaler = ScaleContext()
    /// swscale's output, allocated by FFmpeg with row padding: its SIMD code writes whole vector
    /// widths, past the end of a row whose width is not a multiple of 16 pixels.
    private let scaled = Frame()
    private let streamIndex: Int32
    private let timeline: StreamTimeline
    private var inputDone = false
    private var outputDone = false
    /// Pictures returned so far, and the last packet the decoder refused: a stream that ends
    /// without a single picture fails with that error instead of ending quietly.
    private var picturesDecoded = 0
    private var lastRefusal: Int32?
    private let gate: InterruptGate
    private let readTimeout: Double
    /// When the first packet of the video stream arrived (CLOCK_MONOTONIC ns).
    private(set) var firstPacketAt: UInt64?
    /// The read error that ended the input, when it was not a clean end of file.
    private(set) var lastReadError: Int32?

    /// A still image (JPEG, PNG, …): one frame, shown for the item's whole duration.
    let isStill: Bool
    /// The video stream's duration in seconds, when the container says.
    let duration: Double?
    /// Clockwise quarter turns needed to show the picture upright (from the display matrix).
    let quarterTurns: Int
    /// Whether swscale may write straight into a picture's storage (see `rgba`); tests turn it
    /// off to compare with the padded frame.
    var convertsInPlace = true
    let codecName: String
    let codedWidth: Int
    let codedHeight: Int
    let sampleAspectRatio: Double
    /// Frames per second as the stream declares it; 0 when unknown.
    let frameRate: Double

    /// Opens `source` (`FormatContext.open`), then `av_find_best_stream` and `avcodec_open2`.
    init(source: MediaSource, limits: DecodeLimits, gate: InterruptGate = InterruptGate(), isLive: Bool = false) throws(MediaError) {
        self.gate = gate
        self.readTimeout = limits.timeouts.read
        format = try FormatContext.open(source, limits: limits, gate: gate, isLive: isLive)
        let context = format.pointer!
        let status = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard status >= 0 else {
            throw MediaError(.noVideoStream, "no video stream in \(source)", averror: status)
        }
        streamIndex = status
        let stream = context.pointee.streams[Int(status)]!
        let parameters = stream.pointee.codecpar!
        let width = Int(parameters.pointee.width), height = Int(parameters.pointee.height)
        if width * height > limits.maxPixels {
            throw MediaError(.tooLarge, "picture is \(width)x\(height), more than the limit of \(limits.maxPixels) pixels")
        }
        codec = try CodecContext(parameters: parameters, maxPixels: limits.maxPixels, threads: limits.decoderThreads)
        codedWidth = width
        codedHeight = height
        codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))
        timeline = StreamTimeline(stream)
        let formatName = String(cString: context.pointee.iformat.pointee.name)
        isStill = formatName == "image2" || formatName.hasSuffix("_pipe")
        if stream.pointee.duration != cffmpeg_nopts_value() && stream.pointee.duration > 0 {
            duration = timeline.seconds(length: stream.pointee.duration)
        } else if context.pointee.duration != cffmpeg_nopts_value() && context.pointee.duration > 0 {
            duration = Double(context.pointee.duration) / Double(cffmpeg_time_base())
        } else {
            duration = nil
        }
        let sar = av_guess_sample_aspect_ratio(context, stream, nil)
        sampleAspectRatio = sar.num > 0 && sar.den > 0 ? av_q2d(sar) : 1
        let rate = av_guess_frame_rate(context, stream, nil)
        frameRate = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0
        quarterTurns = MediaDecoder.quarterTurns(stream)
    }

    /// Frees the demuxer, decoder, scaler and buffers now, all at once.
    func close() {
        scaler.close()
        scaled.close()
        packet.close()
        codec.close()
        format.close()
    }

    // MARK: - Decoding

    /// The next picture in decode order (`av_read_frame`, `avcodec_send_packet`,
    /// `avcodec_receive_frame`), or nil at the end of the stream.
    func nextPicture() throws(MediaError) -> DecodedPicture? {
        guard let codecContext = codec.pointer, let formatContext = format.pointer, let packetPointer = packet.pointer else {
            preconditionFailure("decoding after close()")
        }
        let frame = Frame()
        while !outputDone {
            let received = avcodec_receive_frame(codecContext, frame.pointer)
            if received >= 0 {
                picturesDecoded += 1
                return DecodedPicture(frame: frame, time: presentationTime(of: frame.pointer!))
            }
            if received == FFmpegError.endOfFile {
                outputDone = true
                break
            }
            guard received == FFmpegError.tryAgain else {
                throw MediaError(.decode, "cannot decode a frame", averror: received)
            }
            if inputDone {
                // Drain mode was entered; EAGAIN here cannot happen, but never spin.
                outputDone = true
                break
            }
            gate.arm(seconds: readTimeout)
            let read = av_read_frame(formatContext, packetPointer)
            gate.disarm()
            if read < 0 {
                if let reason = gate.reason ?? (read == cffmpeg_averror_exit() ? .stopped : nil) {
                    throw reason == .stopped
                        ? MediaError(.interrupted, "stopped")
                        : MediaError(.timeout, "no data for \(ObjectReader.format(readTimeout)) s")
                }
                if read != FFmpegError.endOfFile { lastReadError = read }
                // End of file, or a truncated file: either way, drain what the decoder holds.
                inputDone = true
                avcodec_send_packet(codecContext, nil)
                continue
            }
            defer { av_packet_unref(packetPointer) }
            guard packetPointer.pointee.stream_index == streamIndex else { continue }
            if firstPacketAt == nil { firstPacketAt = InterruptGate.now() }
            let sent = avcodec_send_packet(codecContext, packetPointer)
            if sent < 0 && sent != FFmpegError.tryAgain {
                // A damaged packet: skip it, as players do, and keep going.
                lastRefusal = sent
                continue
            }
        }
        if picturesDecoded == 0, let lastRefusal {
            throw MediaError(.decode, "no picture could be decoded", averror: lastRefusal)
        }
        return nil
    }

    /// Moves to the last keyframe at or before `seconds` (`avformat_seek_file`) and flushes the decoder.
    func seek(to seconds: Double) throws(MediaError) {
        guard let codecContext = codec.pointer, let formatContext = format.pointer else {
            preconditionFailure("seeking after close()")
        }
        let target = timeline.timestamp(seconds)
        let status = avformat_seek_file(formatContext, streamIndex, Int64.min, target, target, 0)
        guard status >= 0 else { throw MediaError(.seek, "cannot seek to \(seconds) s", averror: status) }
        avcodec_flush_buffers(codecContext)
        inputDone = false
        outputDone = false
    }

    private func presentationTime(of frame: UnsafeMutablePointer<AVFrame>) -> Double {
        timeline.seconds(frame.pointee.best_effort_timestamp) ?? 0
    }

    // MARK: - Conversion

    /// The picture as RGBA at `width`×`height`: turned upright, stretched by the sample aspect
    /// ratio, scaled to cover the canvas with its aspect ratio kept, and centre-cropped.
    /// `spare` is a picture the player no longer shows; its storage is written over when it is
    /// free to be, which spares an 8 MB allocation (and its page faults) per frame at 1080x1920.
    func rgba(_ picture: DecodedPicture, width: Int, height: Int, reusing spare: consuming RGBAImage? = nil) throws(MediaError) -> RGBAImage {
        guard let frame = picture.frame.pointer else { preconditionFailure("converting a freed frame") }
        let turned = quarterTurns % 2 == 1
        // Work in the picture's stored orientation, then turn the result.
        let targetWidth = turned ? height : width
        let targetHeight = turned ? width : height
        let sar = frame.pointee.sample_aspect_ratio.num > 0 && frame.pointee.sample_aspect_ratio.den > 0
            ? av_q2d(frame.pointee.sample_aspect_ratio) : sampleAspectRatio
        let sourceWidth = Double(frame.pointee.width), sourceHeight = Double(frame.pointee.height)
        let scale = max(Double(targetWidth) / (sourceWidth * sar), Double(targetHeight) / sourceHeight)
        let cropWidth = min(sourceWidth, Double(targetWidth) / (scale * sar))
        let cropHeight = min(sourceHeight, Double(targetHeight) / scale)
        let left = Int(((sourceWidth - cropWidth) / 2).rounded())
        let top = Int(((sourceHeight - cropHeight) / 2).rounded())
        frame.pointee.crop_left = numericCast(left)
        frame.pointee.crop_right = numericCast(max(0, Int(sourceWidth) - left - Int(cropWidth.rounded())))
        frame.pointee.crop_top = numericCast(top)
        frame.pointee.crop_bottom = numericCast(max(0, Int(sourceHeight) - top - Int(cropHeight.rounded())))
        let cropped = av_frame_apply_cropping(frame, Int32(AV_FRAME_CROP_UNALIGNED))
        guard cropped >= 0 else { throw MediaError(.convert, "cannot crop the picture", averror: cropped) }

        let sourceFormat = AVPixelFormat(rawValue: frame.pointee.format)
        guard let sws = scaler.context(sourceWidth: frame.pointee.width, sourceHeight: frame.pointee.height,
                                       sourceFormat: sourceFormat, width: Int32(targetWidth), height: Int32(targetHeight))
        else {
            let name = av_get_pix_fmt_name(sourceFormat).map { String(cString: $0) } ?? "unknown"
            throw MediaError(.convert, "cannot convert pixel format \(name) to RGBA")
        }
        configureColorspace(sws, frame: frame)
        /// `sws_scale` of the whole frame into `target` (rows `stride` bytes apart).
        func convert(into target: UnsafeMutablePointer<UInt8>, stride: Int) -> Int32 {
            var targetData: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?,
                             UnsafeMutablePointer<UInt8>?) = (target, nil, nil, nil)
            var targetLines: (Int32, Int32, Int32, Int32) = (Int32(stride), 0, 0, 0)
            return withUnsafePointer(to: frame.pointee.data) { sourceData in
                withUnsafePointer(to: frame.pointee.linesize) { sourceLines in
                    withUnsafeMutablePointer(to: &targetData) { targetData in
                        withUnsafeMutablePointer(to: &targetLines) { targetLines in
                            sws_scale(sws,
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
        var image: RGBAImage
        var lines: Int32 = 0
        if convertsInPlace, quarterTurns % 4 == 0, targetWidth % 8 == 0 {
            // The usual case: swscale writes the picture's own rows, with no padded frame and
            // no copy. (Its SIMD converters write blocks of 8 pixels, so a row of a multiple of
            // 8 is written exactly; the picture keeps slack after the last row all the same.)
            image = RGBAImage(width: targetWidth, height: targetHeight, slack: RGBAImage.writerSlack,
                              reusing: spare.take()) { target in
                lines = convert(into: target, stride: targetWidth * 4)
            }
        } else {
            let output = try scaledFrame(width: targetWidth, height: targetHeight)
            let rows = output.pointee.data.0!, stride = Int(output.pointee.linesize.0)
            lines = convert(into: rows, stride: stride)
            let turned = RGBAImage.turnedSize(width: targetWidth, height: targetHeight, quarterTurns: quarterTurns)
            image = RGBAImage(width: turned.width, height: turned.height, slack: 0, reusing: spare.take()) { target in
                RGBAImage.turn(rows, stride: stride, width: targetWidth, height: targetHeight,
                               quarterTurns: quarterTurns, into: target)
            }
        }
        guard lines > 0 else { throw MediaError(.convert, "cannot convert the picture", averror: lines) }
        if let descriptor = av_pix_fmt_desc_get(sourceFormat), descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 {
            image.flattenAlpha()
        }
        return image
    }

    /// The padded RGBA frame swscale writes into, (re)allocated when the size changes.
    private func scaledFrame(width: Int, height: Int) throws(MediaError) -> UnsafeMutablePointer<AVFrame> {
        guard let frame = scaled.pointer else { preconditionFailure("converting after close()") }
        if frame.pointee.width != Int32(width) || frame.pointee.height != Int32(height) || frame.pointee.data.0 == nil {
            av_frame_unref(frame)
            frame.pointee.width = Int32(width)
            frame.pointee.height = Int32(height)
            frame.pointee.format = AV_PIX_FMT_RGBA.rawValue
            let status = av_frame_get_buffer(frame, 64)
            guard status >= 0 else { throw MediaError(.convert, "cannot allocate a \(width)x\(height) picture", averror: status) }
        }
        return frame
    }

    /// Honours full-range (JPEG) video and BT.709 matrices, which swscale otherwise takes for
    /// limited-range BT.601.
    private func configureColorspace(_ sws: OpaquePointer, frame: UnsafeMutablePointer<AVFrame>) {
        let fullRange: Int32 = frame.pointee.color_range == AVCOL_RANGE_JPEG ? 1 : 0
        let matrix: Int32 = switch frame.pointee.colorspace {
        case AVCOL_SPC_BT709: SWS_CS_ITU709
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: SWS_CS_BT2020
        default: SWS_CS_DEFAULT
        }
        var invTable: UnsafeMutablePointer<Int32>?
        var table: UnsafeMutablePointer<Int32>?
        var srcRange: Int32 = 0, dstRange: Int32 = 0, brightness: Int32 = 0, contrast: Int32 = 0, saturation: Int32 = 0
        guard sws_getColorspaceDetails(sws, &invTable, &srcRange, &table, &dstRange, &brightness, &contrast, &saturation) >= 0 else {
            return
        }
        // Pixel formats swscale already knows to be full range (yuvj*) keep their own setting.
        let range = max(fullRange, srcRange)
        sws_setColorspaceDetails(sws, sws_getCoefficients(matrix), range, table, dstRange, brightness, contrast, saturation)
    }

    // MARK: - Setup helpers

    /// Clockwise quarter turns from the stream's display matrix (`av_display_rotation_get`).
    private static func quarterTurns(_ stream: UnsafeMutablePointer<AVStream>) -> Int {
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, nil) else { return 0 }
        let matrix = UnsafeRawPointer(data).assumingMemoryBound(to: Int32.self)
        let counterClockwise = av_display_rotation_get(matrix)
        guard counterClockwise.isFinite else { return 0 }
        // The matrix says how the stored picture is rotated counter-clockwise; undo it.
        let clockwise = Int((-counterClockwise).rounded())
        return ((clockwise % 360 + 360) % 360 + 45) / 90 % 4
    }
}
