import CFFmpeg

/// An item's sound: its own demuxer and audio decoder, resampled to 48 kHz interleaved float
/// stereo. It belongs to the item's player, so it is created on play and freed on stop too.
/// It decodes on demand, on the render thread, so the mix is as deterministic as the pictures.
final class ItemAudio {
    static let rate = 48_000

    private let format: FormatContext
    private let codec: CodecContext
    private let resampler: ResampleContext
    private let packet = Packet()
    private let frame = Frame()
    private let streamIndex: Int32
    private let timeline: StreamTimeline
    /// Decoded stereo samples, interleaved, starting at media time `bufferStart`.
    private var buffer: [Float] = []
    private var bufferStart: Double?
    private var finished = false

    /// Opens the item's source a second time for its audio; throws when it has none.
    init(source: MediaSource, limits: DecodeLimits, isLive: Bool = false) throws(MediaError) {
        format = try FormatContext.open(source, limits: limits, gate: InterruptGate(), isLive: isLive)
        guard let context = format.pointer else { preconditionFailure("an open demuxer has a context") }
        let status = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard status >= 0 else { throw MediaError(.noAudioStream, "no audio stream in \(source)", averror: status) }
        streamIndex = status
        let stream = context.pointee.streams[Int(status)]!
        codec = try CodecContext(parameters: stream.pointee.codecpar, maxPixels: limits.maxPixels, threads: 1)
        guard let codecContext = codec.pointer else { preconditionFailure("an open decoder has a context") }
        resampler = try ResampleContext(from: codecContext, rate: Int32(ItemAudio.rate))
        timeline = StreamTimeline(stream)
    }

    func close() {
        resampler.close()
        frame.close()
        packet.close()
        codec.close()
        format.close()
    }

    deinit { close() }

    /// `count` stereo frames (2 × `count` floats) starting at media time `start`; silence where
    /// there is no sound (before the track starts, after it ends).
    func samples(from start: Double, count: Int) -> [Float] {
        let end = start + Double(count) / Double(ItemAudio.rate)
        while !finished && (bufferStart == nil || bufferStart! + Double(buffer.count / 2) / Double(ItemAudio.rate) < end) {
            decodeMore()
        }
        var out = [Float](repeating: 0, count: count * 2)
        guard let bufferStart else { return out }
        // Clamped: bufferStart comes from the file's timestamps, which may be anything.
        let samplesAhead = ((start - bufferStart) * Double(ItemAudio.rate)).rounded()
        let offset = samplesAhead.isFinite ? Int(min(max(samplesAhead, -1e15), 1e15)) : 0
        for i in 0..<count {
            let source = offset + i
            if source >= 0 && source * 2 + 1 < buffer.count {
                out[i * 2] = buffer[source * 2]
                out[i * 2 + 1] = buffer[source * 2 + 1]
            }
        }
        // Playback only moves forward: drop what lies more than a second behind.
        let behind = offset - ItemAudio.rate
        if behind > 0 {
            buffer.removeFirst(min(buffer.count, behind * 2))
            self.bufferStart = bufferStart + Double(behind) / Double(ItemAudio.rate)
        }
        return out
    }

    /// Reads and decodes packets until some samples come out or the data ends.
    private func decodeMore() {
        guard format.pointer != nil, let codecContext = codec.pointer, let packet = packet.pointer,
              let frame = frame.pointer, resampler.pointer != nil else {
            finished = true
            return
        }
        while true {
            let received = avcodec_receive_frame(codecContext, frame)
            if received >= 0 {
                append(frame)
                av_frame_unref(frame)
                return
            }
            if received != FFmpegError.tryAgain {
                finished = true
                return
            }
            if format.readFrame(into: packet) < 0 {
                _ = codec.send(nil)
                continue
            }
            if packet.pointee.stream_index == streamIndex { _ = codec.send(packet) }
            av_packet_unref(packet)
        }
    }

    private func append(_ frame: UnsafeMutablePointer<AVFrame>) {
        if bufferStart == nil {
            bufferStart = timeline.seconds(frame.pointee.best_effort_timestamp) ?? 0
        }
        buffer.append(contentsOf: resampler.interleavedStereo(frame))
    }
}
