internal import CFFmpeg
import StoryModel

/// An item's sound: its own demuxer and audio decoder, resampled to 48 kHz interleaved float
/// stereo. It belongs to the item's player, so it is created on play and freed on stop too.
/// An item's player decodes it on demand, on the render thread, so the mix is as deterministic as
/// the pictures; a room participant's sound thread (`ParticipantSound`) reads it block by block
/// (`nextBlock`), each read under the thread's gate and the read timeout.
package final class ItemAudio {
    package static let rate = 48_000

    private let format: FormatContext
    private let codec: CodecContext
    private let resampler: ResampleContext
    private let packet = Packet()
    private let frame = Frame()
    private let streamIndex: Int32
    /// Each frame's media time; a frame without a timestamp follows the one before.
    private var times: SoundFrameTimes
    /// Decoded stereo samples, interleaved, starting at media time `bufferStart`.
    private var buffer: [Float] = []
    private var bufferStart: Double?
    private var finished = false
    /// Every read runs under it, armed with `readTimeout`: a stalled server fails the read.
    private let gate: InterruptGate
    private let readTimeout: Double
    /// The decoder was told the input ended (`avcodec_send_packet(nil)`).
    private var draining = false

    /// Whether a live source read through our own input said it ended (`FormatContext.inputEnded`).
    package var inputEnded: Bool { format.inputEnded }
    /// The container's duration in seconds, when it says (`AVFormatContext.duration`).
    package var duration: Double? { format.duration }

    /// Opens the item's source a second time for its audio (a live one through `live`, its
    /// protocol's opener); throws when it has none.
    package init(source: MediaSource, limits: DecodeLimits, isLive: Bool = false, gate: InterruptGate = InterruptGate(),
                 live: (any LiveOpener)? = nil) throws(MediaError) {
        self.gate = gate
        readTimeout = limits.timeouts.read
        if let live {
            format = try live.openSoundInput(limits: limits, gate: gate)
        } else {
            format = try FormatContext.open(source, limits: limits, gate: gate, isLive: isLive)
        }
        let status = format.soundStream(isLive: isLive)
        guard status >= 0, let stream = format.description(ofStream: status) else {
            throw MediaError(.noAudioStream, "no audio stream in \(source)", averror: status)
        }
        streamIndex = status
        codec = try format.openDecoder(stream: status, maxPixels: limits.maxPixels, threads: 1)
        resampler = try ResampleContext(beforeFirstFrameOf: codec, rate: Int32(ItemAudio.rate))
        times = SoundFrameTimes(stream.timeline)
        // Trims cut videos (`MediaDecoder.trim`): a file of sound only plays whole, as its pictures' side does.
        if !isLive, let start = source.trim?.start, format.hasMovingPictures { skip(to: start, timeline: stream.timeline) }
    }

    /// A trimmed clip's sound is asked for from its `in` on: the demuxer moves to a second
    /// before it (`avformat_seek_file`; the streams of a file may start apart by that much)
    /// rather than decode the whole beginning. A seek that fails only costs that decoding.
    private func skip(to start: Double, timeline: StreamTimeline) {
        guard start > 1 else { return }
        if format.seek(stream: streamIndex, to: timeline.timestamp(start - 1)) >= 0 { codec.flush() }
    }

    /// Set by `close()`: a closed item has no more sound.
    private var closed = false

    package func close() {
        closed = true
        resampler.close()
        frame.close()
        packet.close()
        codec.close()
        format.close()
    }

    deinit { close() }

    /// `count` stereo frames (2 × `count` floats) starting at media time `start`; silence where
    /// there is no sound (before the track starts, after it ends).
    package func samples(from start: Double, count: Int) -> [Float] {
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

    /// Reads and decodes packets until some samples come out or the data ends. A failed read
    /// ends an item's sound here (its pictures report the failure).
    private func decodeMore() {
        do throws(MediaError) {
            guard let block = try nextBlock() else {
                finished = true
                return
            }
            if bufferStart == nil { bufferStart = block.time }
            buffer.append(contentsOf: block.samples)
        } catch {
            finished = true
        }
    }

    /// The next decoded samples and the media time of the first; nil at the end of the data or
    /// once the gate is stopped. A read that fails, or waits past the read timeout, throws.
    package func nextBlock() throws(MediaError) -> SoundBlock? {
        guard !closed else { return nil }
        var failedReceives = 0
        while true {
            let received = codec.receive(into: frame)
            if received >= 0 {
                defer { frame.unref() }
                let time = times.time(of: frame) ?? 0
                // A source that changed its sound mid-stream gets a resampler for it there.
                return SoundBlock(time: time, samples: try resampler.interleavedStereo(frame))
            }
            if received == FFmpegError.endOfFile || draining { return nil }
            // A packet the decoder refused is skipped, as a live story's sound does (`SoundTrack`):
            // the next call gives the next frame or asks for more. A decoder that fails twice in a
            // row with nothing sent between would fail so forever, so that ends the sound, with why.
            if received != FFmpegError.tryAgain {
                failedReceives += 1
                guard failedReceives > 1 else { continue }
                throw MediaError(.decode, "cannot decode the sound", averror: received)
            }
            failedReceives = 0
            gate.arm(seconds: readTimeout)
            let read = format.readFrame(into: packet)
            // Why the gate closed, read before disarming it (as `MediaDecoder` does). A read cut
            // short by the gate may still return the part of a packet it got (flagged corrupt):
            // that is the stall, not sound.
            let interrupted = gate.reason
            gate.disarm()
            if read < 0 || interrupted != nil {
                if read >= 0 { packet.unref() }
                if interrupted == .stopped || read == cffmpeg_averror_exit() && interrupted == nil { return nil }
                if interrupted == .timedOut {
                    throw MediaError(.timeout, "no data for \(ObjectReader.format(readTimeout)) s")
                }
                if read != FFmpegError.endOfFile { throw MediaError(.read, "the connection failed", averror: read) }
                draining = true
                _ = codec.send(nil)
                continue
            }
            if packet.streamIndex == streamIndex { _ = codec.send(packet) }
            packet.unref()
        }
    }
}
