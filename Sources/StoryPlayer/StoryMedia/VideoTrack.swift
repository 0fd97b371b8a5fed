internal import CFFmpeg

/// The video stream a decoder shows, with the decoder opened for it and what the container
/// says about it.
///
/// Most containers name their streams in the header, so the track is set up when the source
/// opens. A live FLV or MPEG-TS stream may announce its video only with its first video packet
/// (nginx-rtmp relays a publisher's sound before its first keyframe), so a live decoder sets it
/// up from whichever packet first belongs to a video stream.
struct VideoTrack {
    let index: Int32
    let codec: CodecContext
    let timeline: StreamTimeline
    let codecName: String
    let codedWidth: Int
    let codedHeight: Int
    let sampleAspectRatio: Double
    /// Frames per second as the stream declares it; 0 when unknown.
    let frameRate: Double
    /// How to show the picture upright (from the display matrix), mirrored ones included.
    let orientation: PictureOrientation
    /// Clockwise quarter turns needed to show the picture upright.
    var quarterTurns: Int { orientation.quarterTurns }
    /// The stream's own duration in seconds, when the container gives one (the decoder falls
    /// back to the whole container's).
    let duration: Double?

    /// `avcodec_open2` for stream `index` of `context` with `threads` decoder threads, refusing
    /// pictures over the pixel limit.
    init(stream index: Int32, of context: UnsafeMutablePointer<AVFormatContext>, limits: DecodeLimits,
         threads: Int) throws(MediaError) {
        let stream = context.pointee.streams[Int(index)]!
        let parameters = stream.pointee.codecpar!
        let width = Int(parameters.pointee.width), height = Int(parameters.pointee.height)
        if width * height > limits.maxPixels {
            throw MediaError(.tooLarge, "picture is \(width)x\(height), more than the limit of \(limits.maxPixels) pixels")
        }
        self.index = index
        codec = try CodecContext(parameters: parameters, maxPixels: limits.maxPixels, threads: threads)
        codedWidth = width
        codedHeight = height
        codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))
        timeline = StreamTimeline(stream)
        duration = stream.pointee.duration != cffmpeg_nopts_value() && stream.pointee.duration > 0
            ? timeline.seconds(length: stream.pointee.duration) : nil
        let sar = av_guess_sample_aspect_ratio(context, stream, nil)
        sampleAspectRatio = sar.num > 0 && sar.den > 0 ? av_q2d(sar) : 1
        let rate = av_guess_frame_rate(context, stream, nil)
        frameRate = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0
        orientation = PictureOrientation.of(stream) ?? .upright
    }
}
