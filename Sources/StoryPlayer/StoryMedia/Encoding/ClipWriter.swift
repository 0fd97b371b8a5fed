internal import CFFmpeg
import Compositor
import Foundation

/// Settings of the MP4 clip (`render --mp4`).
public struct ClipOptions: Sendable {
    public var path: String
    /// x264's constant rate factor: lower is better and larger.
    public var crf = ClipOptions.defaultCRF
    public var preset = ClipOptions.defaultPreset
    /// AAC bit rate.
    public var audioBitRate = 128_000
    /// The sound is written after the last frame (`--loudness` holds it to measure it whole):
    /// the muxer keeps the video packets until it comes (`max_interleave_delta` 0), so the file
    /// is interleaved all the same.
    public var soundAfterFrames = false

    public static let defaultCRF = 20
    public static let defaultPreset = "veryfast"
    /// libx264's presets, fastest first.
    public static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower",
                                 "veryslow", "placebo"]

    public init(path: String) {
        self.path = path
    }
}

/// Writes the rendered frames and the mixed sound as an H.264 + AAC MP4 (libavcodec with libx264,
/// yuv420p, `+faststart`): into a temporary file, renamed into place when complete. One keyframe
/// a second, so a clip can be cut or joined at second boundaries.
///
/// Used from one thread at a time (the clip queue). Every FFmpeg object has an owner that frees
/// it, so a writer whose set-up throws half-way leaks nothing.
package final class ClipWriter {
    private let muxer: MuxerContext
    private let video: CodecContext
    private let audio: CodecContext
    private let videoStream: Int32
    private let audioStream: Int32
    private let scaler = ScaleContext()
    private let picture = Frame()
    private let sound = Frame()
    private let packet = Packet()
    private let temporary: String
    private let path: String
    private var pendingAudio: [Float] = []
    private var audioSamplesWritten: Int64 = 0
    private var finished = false

    package init(options: ClipOptions, width: Int, height: Int, fps: Double) throws(MediaError) {
        // x264 logs its CPU flags at info level when it opens; the level must be set first.
        FFmpegLogging.configureOnce()
        guard width % 2 == 0 && height % 2 == 0 else {
            throw MediaError(.convert, "an MP4 in yuv420p needs an even width and height, not \(width)x\(height)")
        }
        path = options.path
        temporary = AtomicFile.temporaryPath(for: options.path)
        muxer = try MuxerContext(format: "mp4", path: temporary)
        let rate = av_d2q(fps, 100_000)
        let globalHeader = muxer.wantsGlobalHeader

        // Video: libx264.
        guard let x264 = avcodec_find_encoder_by_name("libx264") else {
            throw MediaError(.missingEncoder, "this FFmpeg has no libx264 encoder")
        }
        var videoSettings = EncoderSettings(timeBase: AVRational(num: rate.den, den: rate.num))
        videoSettings.width = Int32(width)
        videoSettings.height = Int32(height)
        videoSettings.pixelFormat = AV_PIX_FMT_YUV420P
        // swscale writes limited-range BT.601 (its default); tagged so, since players
        // (this one too) guess BT.709 for an untagged HD picture.
        videoSettings.colourSpace = AVCOL_SPC_SMPTE170M
        videoSettings.colourRange = AVCOL_RANGE_MPEG
        videoSettings.frameRate = rate
        let gop = Int32(max(1, fps.rounded()))
        videoSettings.gopSize = gop
        videoSettings.maxBFrames = 2
        videoSettings.globalHeader = globalHeader
        videoSettings.privateOptions = [
            ("crf", String(options.crf)), ("preset", options.preset),
            // Closed GOPs of one second: segments joined without re-encoding start on a keyframe.
            ("x264-params", "keyint=\(gop):min-keyint=\(gop):scenecut=0:open-gop=0"),
        ]
        video = try CodecContext(encoder: x264, settings: videoSettings, failure: "cannot open libx264")
        videoStream = muxer.addStream(from: video)
        guard videoStream >= 0 else { throw MediaError(.open, "cannot add the video stream to the MP4", averror: videoStream) }

        // Audio: AAC, 48 kHz stereo.
        guard let aac = avcodec_find_encoder(AV_CODEC_ID_AAC) else { throw MediaError(.missingEncoder, "no AAC encoder") }
        var audioSettings = EncoderSettings(timeBase: AVRational(num: 1, den: Int32(ItemAudio.rate)))
        audioSettings.sampleRate = Int32(ItemAudio.rate)
        audioSettings.sampleFormat = AV_SAMPLE_FMT_FLTP
        audioSettings.bitRate = Int64(options.audioBitRate)
        audioSettings.stereo = true
        audioSettings.globalHeader = globalHeader
        audio = try CodecContext(encoder: aac, settings: audioSettings, failure: "cannot open the AAC encoder")
        audioStream = muxer.addStream(from: audio)
        guard audioStream >= 0 else { throw MediaError(.open, "cannot add the audio stream to the MP4", averror: audioStream) }

        var status = muxer.openFile(temporary)
        guard status >= 0 else { throw MediaError(.open, "cannot write \(temporary)", averror: status) }
        status = muxer.writeHeader(options: ["movflags": "+faststart"].merging(options.soundAfterFrames ? ["max_interleave_delta": "0"] : [:]) { $1 })
        guard status >= 0 else { throw MediaError(.open, "cannot start the MP4", averror: status) }

        // The reusable frames.
        status = picture.allocatePicture(width: Int32(width), height: Int32(height), format: AV_PIX_FMT_YUV420P)
        guard status >= 0 else { throw MediaError(.convert, "cannot allocate a video frame", averror: status) }
        let frameSize = audio.frameSize
        status = sound.allocateStereoSound(samples: frameSize > 0 ? frameSize : 1024, rate: Int32(ItemAudio.rate))
        guard status >= 0 else { throw MediaError(.convert, "cannot allocate an audio frame", averror: status) }
    }

    deinit {
        // Abandoned (an error): nothing half-written stays behind. The owners free the rest.
        if !finished {
            _ = muxer.closeFile()
            unlink(temporary)
        }
    }

    /// Frame `index` of the clip: presentation time index / fps.
    package func append(frame image: RGBAImage, index: Int) throws(MediaError) {
        let writable = picture.makeWritable()
        guard writable >= 0 else { throw MediaError(.convert, "cannot convert a frame for the MP4", averror: writable) }
        let lines = image.pixels.withUnsafeBufferPointer { rgba in
            scaler.scale(rgba: rgba.baseAddress!, width: Int32(image.width), height: Int32(image.height), into: picture)
        }
        guard lines > 0 else { throw MediaError(.convert, "cannot convert a frame for the MP4", averror: lines) }
        picture.pts = Int64(index)
        try encode(picture, with: video, into: videoStream)
    }

    /// Interleaved stereo samples at 48 kHz, following the previous ones.
    package func append(audio samples: [Float]) throws(MediaError) {
        pendingAudio.append(contentsOf: samples)
        try writeAudio(flush: false)
    }

    /// Flushes the encoders, finishes the file and moves it into place.
    package func finish() throws(MediaError) {
        try writeAudio(flush: true)
        try encode(nil, with: video, into: videoStream)
        try encode(nil, with: audio, into: audioStream)
        var status = muxer.writeTrailer()
        guard status >= 0 else { throw MediaError(.convert, "cannot finish the MP4", averror: status) }
        status = muxer.closeFile()
        guard status >= 0 else { throw MediaError(.convert, "cannot close the MP4", averror: status) }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw MediaError(.convert, "cannot move the MP4 to \(path)", cause: String(cString: strerror(errno)))
        }
        finished = true
    }

    private func writeAudio(flush: Bool) throws(MediaError) {
        let size = Int(sound.sampleCount)
        while pendingAudio.count >= size * 2 || (flush && !pendingAudio.isEmpty) {
            let writable = sound.makeWritable()
            guard writable >= 0 else { throw MediaError(.convert, "cannot reuse the audio frame", averror: writable) }
            guard let leftPlane = sound.plane(0)?.rows, let rightPlane = sound.plane(1)?.rows else {
                throw MediaError(.convert, "cannot reuse the audio frame")
            }
            let available = min(size, pendingAudio.count / 2)
            let left = UnsafeMutableRawPointer(leftPlane).assumingMemoryBound(to: Float.self)
            let right = UnsafeMutableRawPointer(rightPlane).assumingMemoryBound(to: Float.self)
            for i in 0..<size {
                left[i] = i < available ? pendingAudio[i * 2] : 0
                right[i] = i < available ? pendingAudio[i * 2 + 1] : 0
            }
            pendingAudio.removeFirst(available * 2)
            sound.pts = audioSamplesWritten
            audioSamplesWritten += Int64(size)
            try encode(sound, with: audio, into: audioStream)
        }
    }

    private func encode(_ frame: Frame?, with codec: CodecContext, into stream: Int32) throws(MediaError) {
        var status = codec.send(frame: frame)
        guard status >= 0 || status == FFmpegError.endOfFile else { throw MediaError(.convert, "cannot encode", averror: status) }
        while true {
            status = codec.receive(packet: packet)
            if status == FFmpegError.tryAgain || status == FFmpegError.endOfFile { return }
            guard status >= 0 else { throw MediaError(.convert, "cannot encode", averror: status) }
            status = muxer.write(packet, from: codec.timeBase, stream: stream)
            guard status >= 0 else { throw MediaError(.convert, "cannot write to the MP4", averror: status) }
        }
    }
}
