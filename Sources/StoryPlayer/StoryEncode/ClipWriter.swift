internal import CFFmpeg
import Compositor
import Foundation
import StoryBase
import StoryMedia

/// Writes the rendered frames, and the mixed sound where the format carries it, as one file of
/// an `ExportFormat`: an MP4 (H.264 or HEVC, with AAC, `+faststart`), a WebM (VP9 or AV1, with
/// Opus), or an animation (GIF, WebP, APNG) through a filter graph. Into a temporary file,
/// renamed into place when complete. The videos have closed GOPs of one second unless told
/// otherwise, so a clip can be cut or joined at second boundaries.
///
/// Used from one thread at a time (its clip queue). Every FFmpeg object has an owner that frees
/// it, so a writer whose set-up throws half-way leaks nothing.
package final class ClipWriter {
    /// What it writes.
    package let format: ExportFormat
    private let muxer: MuxerContext
    private let video: CodecContext
    private let audio: CodecContext?
    private let videoStream: Int32
    private let audioStream: Int32
    /// An animation's filters (`ClipWriter+Animation`): rate, size, palette or pixel format.
    private let animation: FilterGraph?
    /// Where the frames appended so far end, in frames: the last one's index and one.
    private var framesEnd: Int64 = 0
    private let scaler = ScaleContext()
    /// The video's matrix and tags, by its size.
    private let colour: ClipColour
    /// The encoder's picture (a video), or the animation graph's input picture (RGBA).
    private let picture = Frame()
    /// What the animation graph gives, before the encoder takes it.
    private let filtered = Frame()
    private let sound = Frame()
    private let packet = Packet()
    private let temporary: String
    private let path: String
    private var pendingAudio = PendingSound()
    private var finished = false
    /// The encoder's pixel format (with an alpha plane when the clip keeps the frames' alpha).
    private let pixelFormat: AVPixelFormat
    /// Whether it keeps the frames' alpha (`ClipOptions.keepsAlpha`).
    package let keepsAlpha: Bool

    package init(options: ClipOptions, width: Int, height: Int, fps: Double) throws(MediaError) {
        // x264 logs its CPU flags at info level when it opens; the level must be set first.
        FFmpegLogging.configureOnce()
        format = options.format
        precondition(!options.keepsAlpha || options.format.carriesAlpha, "\(options.format.name) carries no alpha")
        guard format.isAnimation || (width % 2 == 0 && height % 2 == 0) else {
            throw MediaError(.convert, "\(format.name) in yuv420p needs an even width and height, not \(width)x\(height)")
        }
        path = options.path
        colour = ClipColour.of(width: width, height: height)
        temporary = AtomicFile.temporaryPath(for: options.path)
        muxer = try MuxerContext(format: format.muxer(for: options.path), path: temporary)
        let pictures = try Self.videoEncoder(options, width: width, height: height, fps: fps, colour: colour,
                                             globalHeader: muxer.wantsGlobalHeader)
        video = pictures.codec
        animation = pictures.animation
        videoStream = try Self.addVideoStream(pictures.codec, format: format, to: muxer)
        let soundTrack = try Self.soundEncoder(options, globalHeader: muxer.wantsGlobalHeader, muxer: muxer)
        audio = soundTrack?.codec
        audioStream = soundTrack?.stream ?? -1
        keepsAlpha = options.keepsAlpha
        pixelFormat = format.isAnimation ? format.pixelFormat : format.pixelFormat(keepingAlpha: options.keepsAlpha)
        try startFile(options)
        try allocateFrames(width: width, height: height)
    }

    /// Opens the temporary file and writes the header.
    private func startFile(_ options: ClipOptions) throws(MediaError) {
        var status = muxer.openFile(temporary)
        guard status >= 0 else { throw MediaError(.open, "cannot write \(temporary)", averror: status) }
        status = muxer.writeHeader(options: format.muxerOptions.merging(options.soundAfterFrames ? ["max_interleave_delta": "0"] : [:]) { $1 })
        guard status >= 0 else { throw MediaError(.open, "cannot start the \(format.kind)", averror: status) }
    }

    /// The reusable frames: the canvas as the animation graph takes it (RGBA at the canvas's
    /// size), or the encoder's picture; and the sound's.
    private func allocateFrames(width: Int, height: Int) throws(MediaError) {
        var status = format.isAnimation
            ? picture.allocatePicture(width: Int32(width), height: Int32(height), format: AV_PIX_FMT_RGBA)
            : picture.allocatePicture(width: Int32(width), height: Int32(height), format: pixelFormat)
        guard status >= 0 else { throw MediaError(.convert, "cannot allocate a video frame", averror: status) }
        if let audio {
            let frameSize = audio.frameSize
            status = sound.allocateStereoSound(samples: frameSize > 0 ? frameSize : 1024, rate: Int32(ItemAudio.rate),
                                               interleaved: Self.interleavedSound(format))
            guard status >= 0 else { throw MediaError(.convert, "cannot allocate an audio frame", averror: status) }
        }
    }

    deinit {
        // Abandoned (an error): nothing half-written stays behind. The owners free the rest.
        abandon()
    }

    /// Closes the file unfinished and removes it (`avio_closep`, `unlink`): for a render that
    /// failed. Called by the render before it reports the failure, not left to `deinit`, which a
    /// process exiting at once may never reach while the writer's queue still holds it.
    package func abandon() {
        guard !finished else { return }
        finished = true
        _ = muxer.closeFile()
        TemporaryFiles.discard(temporary)
    }

    /// Whether the format carries sound (`append(audio:)` is a no-op otherwise).
    package var carriesSound: Bool { audio != nil }

    /// Frame `index` of the clip: presentation time index / fps.
    package func append(frame image: RGBAImage, index: Int) throws(MediaError) {
        try EncoderSteps.fill(picture, from: image, index: index, scaler: scaler, colour: colour, for: format.kind)
        framesEnd = Int64(index) + 1
        if let animation {
            try filter(picture, through: animation)
        } else {
            try encode(picture, with: video, into: videoStream)
        }
    }

    /// Interleaved stereo samples at 48 kHz, following the previous ones.
    package func append(audio samples: [Float]) throws(MediaError) {
        guard audio != nil else { return }
        pendingAudio.append(samples)
        try writeAudio(flush: false)
    }

    /// Flushes the encoders, finishes the file and moves it into place.
    package func finish() throws(MediaError) {
        if let animation { try filter(nil, through: animation, endingAt: framesEnd) }
        if let audio {
            try writeAudio(flush: true)
            try encode(nil, with: audio, into: audioStream)
        }
        try encode(nil, with: video, into: videoStream)
        var status = muxer.writeTrailer()
        guard status >= 0 else { throw MediaError(.convert, "cannot finish the \(format.kind)", averror: status) }
        status = muxer.closeFile()
        guard status >= 0 else { throw MediaError(.convert, "cannot close the \(format.kind)", averror: status) }
        guard TemporaryFiles.place(temporary, at: path) == 0 else {
            TemporaryFiles.discard(temporary)
            throw MediaError(.convert, "cannot move the \(format.kind) to \(path)", cause: String(cString: strerror(errno)))
        }
        finished = true
    }

    // MARK: - Animation

    /// Gives `frame` (nil: the end) to the animation's filters and encodes every picture they
    /// have ready: a GIF's come only at the end, when its palette is known.
    private func filter(_ frame: Frame?, through graph: FilterGraph, endingAt end: Int64 = 0) throws(MediaError) {
        var status = frame == nil ? graph.close(at: end) : graph.push(frame)
        guard status >= 0 else { throw MediaError(.convert, "cannot filter a frame for the \(format.kind)", averror: status) }
        while true {
            status = graph.pull(into: filtered)
            if status == FFmpegError.tryAgain || status == FFmpegError.endOfFile { return }
            guard status >= 0 else { throw MediaError(.convert, "cannot filter a frame for the \(format.kind)", averror: status) }
            try encode(filtered, with: video, into: videoStream)
        }
    }

    // MARK: - Sound

    private func writeAudio(flush: Bool) throws(MediaError) {
        guard let audio else { return }
        let size = Int(sound.sampleCount)
        // The last frame goes as long as its sound, not padded to a whole frame: the file's
        // sound then ends with its pictures. Padded, each shard's MP4 had 10-13 ms more sound
        // than pictures, and ffmpeg's concat demuxer, which starts the next file where this
        // one's longest stream ends, put every join's pictures that much later.
        while try pendingAudio.fill(sound, size: size, interleaved: Self.interleavedSound(format), flush: flush,
                                    shortLast: audio.takesShortLastFrame) {
            try encode(sound, with: audio, into: audioStream)
            sound.sampleCount = Int32(size)
        }
    }

    /// libopus and PCM take interleaved samples only; AAC takes planar ones.
    static func interleavedSound(_ format: ExportFormat) -> Bool { ["libopus", "pcm_f32le"].contains(format.audioEncoder) }

    private func encode(_ frame: Frame?, with codec: CodecContext, into stream: Int32) throws(MediaError) {
        try EncoderSteps.encode(frame, with: codec, into: packet, isVideo: stream == videoStream) { (packet) throws(MediaError) in
            let status = muxer.write(packet, from: codec.timeBase, stream: stream)
            guard status >= 0 else { throw MediaError(.convert, "cannot write to the \(format.kind)", averror: status) }
        }
    }
}
