internal import CFFmpeg
import StoryBase
import StoryMedia

// MARK: - Setting up: the encoders, the streams, the file and the reusable frames

extension ClipWriter {
    /// The video's encoder, opened, and an animation's filters (rate, size, palette or pixel
    /// format) before it.
    static func videoEncoder(_ options: ClipOptions, width: Int, height: Int, fps: Double, colour: ClipColour,
                             globalHeader: Bool) throws(MediaError) -> (codec: CodecContext, animation: FilterGraph?) {
        let format = options.format
        guard let encoder = avcodec_find_encoder_by_name(format.videoEncoder) else {
            throw MediaError(.missingEncoder, "this FFmpeg has no \(format.videoEncoder) encoder, which the \(format.name) needs")
        }
        let rate = av_d2q(fps, 100_000)
        var animation: FilterGraph?
        var settings: EncoderSettings
        if format.isAnimation {
            let graph = try animationGraph(options, width: width, height: height, rate: rate)
            animation = graph
            settings = animationSettings(options, width: width, height: height, graph: graph)
        } else {
            settings = videoSettings(options, width: width, height: height, fps: fps, rate: rate, colour: colour)
        }
        settings.pixelFormat = format.isAnimation ? format.pixelFormat : format.pixelFormat(keepingAlpha: options.keepsAlpha)
        settings.globalHeader = globalHeader
        let codec = try CodecContext(encoder: encoder, settings: settings, failure: "cannot open \(format.videoEncoder)")
        return (codec, animation)
    }

    /// An animation's filters, from the canvas (RGBA at its size and the render's rate) to the
    /// animation's size and rate.
    private static func animationGraph(_ options: ClipOptions, width: Int, height: Int,
                                       rate: AVRational) throws(MediaError) -> FilterGraph {
        let size = options.animationSize(canvasWidth: width, height: height)
        return try FilterGraph(filters: animationFilters(options.format, width: size.width, height: size.height,
                                                         fps: options.animationFPS),
                               width: Int32(width), height: Int32(height),
                               pixelFormat: AV_PIX_FMT_RGBA.rawValue,
                               sampleAspectRatio: AVRational(num: 1, den: 1), threads: 0,
                               timeBase: AVRational(num: rate.den, den: rate.num), frameRate: rate)
    }

    private static func animationSettings(_ options: ClipOptions, width: Int, height: Int,
                                          graph: FilterGraph) -> EncoderSettings {
        let size = options.animationSize(canvasWidth: width, height: height)
        var settings = EncoderSettings(timeBase: graph.outputTimeBase)
        settings.width = Int32(size.width)
        settings.height = Int32(size.height)
        settings.frameRate = av_d2q(options.animationFPS, 100_000)
        return settings
    }

    private static func videoSettings(_ options: ClipOptions, width: Int, height: Int, fps: Double, rate: AVRational,
                                      colour: ClipColour) -> EncoderSettings {
        var settings = EncoderSettings(timeBase: AVRational(num: rate.den, den: rate.num))
        settings.width = Int32(width)
        settings.height = Int32(height)
        // BT.709 for HD, BT.601 for SD (`ClipColour`): the matrix swscale converts with
        // and the tags agree, and agree with what a player that ignores the tags guesses.
        settings.colourSpace = colour.matrix
        settings.colourPrimaries = colour.primaries
        settings.colourTransfer = colour.transfer
        settings.colourRange = AVCOL_RANGE_MPEG
        settings.frameRate = rate
        applyVideoCodec(options, fps: fps, to: &settings)
        return settings
    }

    static func addVideoStream(_ video: CodecContext, format: ExportFormat, to muxer: MuxerContext) throws(MediaError) -> Int32 {
        // Apple's players take HEVC in MP4 only under the `hvc1` tag (libavformat's default is `hev1`).
        let stream = muxer.addStream(from: video, tag: format == .mp4HEVC ? "hvc1" : nil)
        guard stream >= 0 else {
            throw MediaError(.open, "cannot add the video stream to the \(format.kind)", averror: stream)
        }
        return stream
    }

    /// Sound: AAC (MP4) or Opus (WebM), 48 kHz stereo, its encoder and stream; none in an animation.
    static func soundEncoder(_ options: ClipOptions, globalHeader: Bool,
                             muxer: MuxerContext) throws(MediaError) -> (codec: CodecContext, stream: Int32)? {
        guard let encoder = try soundCodec(options, globalHeader: globalHeader) else { return nil }
        let stream = muxer.addStream(from: encoder)
        guard stream >= 0 else {
            throw MediaError(.open, "cannot add the audio stream to the \(options.format.kind)", averror: stream)
        }
        return (encoder, stream)
    }

    /// The sound's encoder alone, opened: AAC or Opus, 48 kHz stereo; nil for an animation.
    static func soundCodec(_ options: ClipOptions, globalHeader: Bool) throws(MediaError) -> CodecContext? {
        let format = options.format
        guard let audioEncoder = format.audioEncoder else { return nil }
        guard let codec = avcodec_find_encoder_by_name(audioEncoder) else {
            throw MediaError(.missingEncoder, "this FFmpeg has no \(audioEncoder) encoder, which the \(format.name) needs")
        }
        var settings = EncoderSettings(timeBase: AVRational(num: 1, den: Int32(ItemAudio.rate)))
        settings.sampleRate = Int32(ItemAudio.rate)
        settings.sampleFormat = interleavedSound(format) ? AV_SAMPLE_FMT_FLT : AV_SAMPLE_FMT_FLTP
        settings.bitRate = Int64(options.audioBitRate)
        settings.stereo = true
        settings.globalHeader = globalHeader
        return try CodecContext(encoder: codec, settings: settings,
                                failure: "cannot open the \(audioEncoder == "aac" ? "AAC" : audioEncoder) encoder")
    }
}
