internal import CFFmpeg
import Compositor
import Foundation
import StoryBase
import StoryMedia

/// A recording's one encode (H.264 and AAC, 48 kHz stereo), fanned out to its outputs: each
/// packet is encoded once and handed to every output as a reference of its own (no copy of
/// its bytes), so a second and a third output cost a muxer each, not an encoder.
///
/// The encoders write their parameter sets once, as global headers, which every output's
/// container takes (MP4 and FLV as such; MPEG-TS and HLS get them before each keyframe from
/// their muxers). Used from one thread at a time (its clip queue).
package final class LiveEncoder: ClipEncoding {
    package let format = ExportFormat.mp4H264
    private let video: CodecContext
    private let audio: CodecContext
    private let outputs: [any LiveOutput]
    /// The streams the outputs were started with.
    package let streams: LiveStreams
    private let scaler = ScaleContext()
    private let colour: ClipColour
    private let picture = Frame()
    private let sound = Frame()
    private let packet = Packet()
    private var pendingAudio = PendingSound()
    private var finished = false

    /// Opens the encoders with `options` (its format is H.264 whatever it says) and starts every
    /// output; `startedAt` is the wall time of frame 0, in seconds since 1970.
    package init(options: ClipOptions, width: Int, height: Int, fps: Double, startedAt: Double,
                 outputs: [any LiveOutput]) throws(MediaError) {
        FFmpegLogging.configureOnce()
        guard width % 2 == 0 && height % 2 == 0 else {
            throw MediaError(.convert, "H.264 in yuv420p needs an even width and height, not \(width)x\(height)")
        }
        var options = options
        options.format = .mp4H264
        colour = ClipColour.of(width: width, height: height)
        video = try ClipWriter.videoEncoder(options, width: width, height: height, fps: fps, colour: colour, globalHeader: true).codec
        guard let audio = try ClipWriter.soundCodec(options, globalHeader: true) else {
            preconditionFailure("an MP4 carries sound")
        }
        self.audio = audio
        streams = LiveStreams(video: try CodecParameters(of: video), audio: try CodecParameters(of: audio), fps: fps,
                              gopFrames: options.gopFrames ?? max(1, Int(fps.rounded())), startedAt: startedAt)
        self.outputs = outputs
        for output in outputs { try output.start(streams) }
        var status = picture.allocatePicture(width: Int32(width), height: Int32(height), format: format.pixelFormat)
        guard status >= 0 else { throw MediaError(.convert, "cannot allocate a video frame", averror: status) }
        status = sound.allocateStereoSound(samples: audio.frameSize > 0 ? audio.frameSize : 1024, rate: Int32(ItemAudio.rate),
                                           interleaved: false)
        guard status >= 0 else { throw MediaError(.convert, "cannot allocate an audio frame", averror: status) }
    }

    package var carriesSound: Bool { true }

    package func append(frame image: RGBAImage, index: Int) throws(MediaError) {
        try EncoderSteps.fill(picture, from: image, index: index, scaler: scaler, colour: colour, for: "recording")
        try encode(picture, with: video, as: .video)
    }

    package func append(audio samples: [Float]) throws(MediaError) {
        pendingAudio.append(samples)
        try writeAudio(flush: false)
    }

    /// Flushes the encoders into the outputs, then finishes each (its last segment closed, the
    /// playlist ended, a push's trailer sent).
    package func finish() throws(MediaError) {
        guard !finished else { return }
        finished = true
        try writeAudio(flush: true)
        try encode(nil, with: audio, as: .audio)
        try encode(nil, with: video, as: .video)
        for output in outputs { output.prepareToFinish() }
        for output in outputs { output.finish() }
    }

    package func abandon() {
        guard !finished else { return }
        finished = true
        for output in outputs { output.abandon() }
    }

    private func writeAudio(flush: Bool) throws(MediaError) {
        let size = Int(sound.sampleCount)
        while try pendingAudio.fill(sound, size: size, interleaved: false, flush: flush, shortLast: audio.takesShortLastFrame) {
            try encode(sound, with: audio, as: .audio)
            sound.sampleCount = Int32(size)
        }
    }

    /// Encodes `frame` (nil: flush) and gives every packet to every output.
    private func encode(_ frame: Frame?, with codec: CodecContext, as kind: LiveStreams.Kind) throws(MediaError) {
        try EncoderSteps.encode(frame, with: codec, into: packet, isVideo: kind == .video) { packet in
            for output in outputs { output.write(packet.reference(), stream: kind) }
            packet.unref()
        }
    }
}
