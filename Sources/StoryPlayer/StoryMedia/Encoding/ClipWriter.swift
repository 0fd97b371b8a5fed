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
        video = try CodecContext(encoder: x264, failure: "cannot open libx264") { v in
            v.pointee.width = Int32(width)
            v.pointee.height = Int32(height)
            v.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            // swscale writes limited-range BT.601 (its default); tagged so, since players
            // (this one too) guess BT.709 for an untagged HD picture.
            v.pointee.colorspace = AVCOL_SPC_SMPTE170M
            v.pointee.color_range = AVCOL_RANGE_MPEG
            v.pointee.time_base = AVRational(num: rate.den, den: rate.num)
            v.pointee.framerate = rate
            v.pointee.gop_size = Int32(max(1, fps.rounded()))
            v.pointee.max_b_frames = 2
            if globalHeader { v.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
            av_opt_set(v.pointee.priv_data, "crf", String(options.crf), 0)
            av_opt_set(v.pointee.priv_data, "preset", options.preset, 0)
            // Closed GOPs of one second: segments joined without re-encoding start on a keyframe.
            av_opt_set(v.pointee.priv_data, "x264-params",
                       "keyint=\(v.pointee.gop_size):min-keyint=\(v.pointee.gop_size):scenecut=0:open-gop=0", 0)
        }
        videoStream = muxer.addStream(for: video)

        // Audio: AAC, 48 kHz stereo.
        guard let aac = avcodec_find_encoder(AV_CODEC_ID_AAC) else { throw MediaError(.missingEncoder, "no AAC encoder") }
        audio = try CodecContext(encoder: aac, failure: "cannot open the AAC encoder") { a in
            a.pointee.sample_rate = Int32(ItemAudio.rate)
            a.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            a.pointee.bit_rate = Int64(options.audioBitRate)
            av_channel_layout_default(&a.pointee.ch_layout, 2)
            a.pointee.time_base = AVRational(num: 1, den: Int32(ItemAudio.rate))
            if globalHeader { a.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
        }
        audioStream = muxer.addStream(for: audio)

        var status = muxer.openFile(temporary)
        guard status >= 0 else { throw MediaError(.open, "cannot write \(temporary)", averror: status) }
        status = muxer.writeHeader(options: ["movflags": "+faststart"])
        guard status >= 0 else { throw MediaError(.open, "cannot start the MP4", averror: status) }

        // The reusable frames.
        guard let p = picture.pointer, let s = sound.pointer else { preconditionFailure("frames freed while set up") }
        p.pointee.width = Int32(width)
        p.pointee.height = Int32(height)
        p.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        status = av_frame_get_buffer(p, 64)
        guard status >= 0 else { throw MediaError(.convert, "cannot allocate a video frame", averror: status) }
        let frameSize = audio.pointer?.pointee.frame_size ?? 0
        s.pointee.nb_samples = frameSize > 0 ? frameSize : 1024
        s.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        s.pointee.sample_rate = Int32(ItemAudio.rate)
        av_channel_layout_default(&s.pointee.ch_layout, 2)
        status = av_frame_get_buffer(s, 0)
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
        guard let p = picture.pointer else { preconditionFailure("appending after the frame was freed") }
        guard av_frame_make_writable(p) >= 0,
              let sws = scaler.context(sourceWidth: Int32(image.width), sourceHeight: Int32(image.height),
                                       sourceFormat: AV_PIX_FMT_RGBA, width: p.pointee.width, height: p.pointee.height,
                                       targetFormat: AV_PIX_FMT_YUV420P)
        else { throw MediaError(.convert, "cannot convert a frame for the MP4") }
        let lines = image.pixels.withUnsafeBufferPointer { rgba in
            var source: [UnsafePointer<UInt8>?] = [rgba.baseAddress, nil, nil, nil]
            var stride: [Int32] = [Int32(image.width * 4), 0, 0, 0]
            return withUnsafeMutablePointer(to: &p.pointee.data) { data in
                withUnsafeMutablePointer(to: &p.pointee.linesize) { lines in
                    FFmpegFaults.injected(.scale) ?? sws_scale(sws, &source, &stride, 0, Int32(image.height),
                        UnsafeMutableRawPointer(data).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                        UnsafeMutableRawPointer(lines).assumingMemoryBound(to: Int32.self))
                }
            }
        }
        guard lines > 0 else { throw MediaError(.convert, "cannot convert a frame for the MP4", averror: lines) }
        p.pointee.pts = Int64(index)
        try encode(p, with: video, into: videoStream)
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
        guard let s = sound.pointer else { preconditionFailure("appending after the frame was freed") }
        let size = Int(s.pointee.nb_samples)
        while pendingAudio.count >= size * 2 || (flush && !pendingAudio.isEmpty) {
            guard av_frame_make_writable(s) >= 0, let leftPlane = s.pointee.data.0, let rightPlane = s.pointee.data.1 else {
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
            s.pointee.pts = audioSamplesWritten
            audioSamplesWritten += Int64(size)
            try encode(s, with: audio, into: audioStream)
        }
    }

    private func encode(_ frame: UnsafeMutablePointer<AVFrame>?, with codec: CodecContext, into stream: Int32) throws(MediaError) {
        var status = codec.send(frame: frame)
        guard status >= 0 || status == FFmpegError.endOfFile else { throw MediaError(.convert, "cannot encode", averror: status) }
        guard let packet = self.packet.pointer else { preconditionFailure("encoding after the packet was freed") }
        while true {
            status = codec.receive(packet: packet)
            if status == FFmpegError.tryAgain || status == FFmpegError.endOfFile { return }
            guard status >= 0 else { throw MediaError(.convert, "cannot encode", averror: status) }
            status = muxer.write(packet, from: codec.timeBase, stream: stream)
            guard status >= 0 else { throw MediaError(.convert, "cannot write to the MP4", averror: status) }
        }
    }
}
