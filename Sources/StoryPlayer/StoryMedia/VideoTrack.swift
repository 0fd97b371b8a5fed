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

    /// `avcodec_open2` for stream `index` of `format` with the decoder threads `limits` give its
    /// bit rate (`DecodeLimits.decoderThreads(bitRate:…)`), refusing pictures over the pixel limit.
    /// Its pictures are timed from `trimStart` seconds into the stream (an item's `in`).
    init(stream index: Int32, of format: FormatContext, limits: DecodeLimits, trimStart: Double = 0) throws(MediaError) {
        guard let stream = format.description(ofStream: index) else { preconditionFailure("a video track of a stream the demuxer has") }
        let width = stream.width, height = stream.height
        if width * height > limits.maxPixels {
            throw MediaError(.tooLarge, "picture is \(width)x\(height), more than the limit of \(limits.maxPixels) pixels")
        }
        self.index = index
        // A heavy stream playing opens on frame threads (`DecodeLimits.heavyPlaybackThreads`).
        let threads = limits.decoderThreads(bitRate: stream.bitRate, width: width, height: height,
                                            frameRate: format.frameRate(ofStream: index))
        codec = try format.openDecoder(stream: index, maxPixels: limits.maxPixels, threads: threads)
        codedWidth = width
        codedHeight = height
        codecName = stream.codecName
        timeline = stream.timeline.starting(after: trimStart)
        duration = stream.duration.map { stream.timeline.seconds(length: $0) }
        sampleAspectRatio = format.sampleAspectRatio(ofStream: index)
        frameRate = format.frameRate(ofStream: index)
        orientation = format.orientation(ofStream: index) ?? .upright
    }
}
