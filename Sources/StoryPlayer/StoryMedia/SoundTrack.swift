internal import CFFmpeg

/// Sound decoded as it arrives: a block of 48 kHz interleaved float stereo and the source time of
/// its first sample, in absolute stream seconds (timestamp × time base).
package struct SoundBlock: Sendable {
    package var time: Double
    package var samples: [Float]
}

/// The audio stream of a live source, decoded from the packets its player's demuxer reads, so a
/// live story's sound comes over the one connection its pictures do (a second connection is not
/// always possible: an SRT publisher that listens takes one caller).
///
/// Owned by the `MediaDecoder` of one play and freed with it, like the video track.
package final class SoundTrack {
    package let index: Int32
    private let codec: CodecContext
    private let resampler: ResampleContext
    private let frame = Frame()
    /// Each frame's time in absolute stream seconds (timestamp × time base).
    private var times: SoundFrameTimes

    /// `avcodec_parameters_to_context` + `avcodec_open2` for stream `index`, and a resampler to
    /// 48 kHz stereo (`swr_init`), which follows the frames' own rate and format when the
    /// demuxer had not learnt them (a live HLS segment).
    package init(stream index: Int32, of format: FormatContext, limits: DecodeLimits) throws(MediaError) {
        self.index = index
        guard let stream = format.description(ofStream: index) else { preconditionFailure("a packet's stream is the demuxer's") }
        times = SoundFrameTimes(StreamTimeline(unit: stream.timeline.unit, start: 0))
        codec = try format.openDecoder(stream: index, maxPixels: limits.maxPixels, threads: 1)
        resampler = try ResampleContext(beforeFirstFrameOf: codec, rate: Int32(ItemAudio.rate))
    }

    /// Decodes one packet of the stream (`avcodec_send_packet`, `avcodec_receive_frame`) into
    /// blocks; a packet the decoder refuses is skipped, as a damaged video packet is.
    package func decode(_ packet: Packet) -> [SoundBlock] {
        guard codec.send(packet) >= 0 else { return [] }
        var blocks: [SoundBlock] = []
        while codec.receive(into: frame) >= 0 {
            defer { frame.unref() }
            // A frame without a timestamp follows the one before (`SoundFrameTimes`).
            guard let time = times.time(of: frame) else { continue }
            // A publisher that changed its sound (stereo to mono, another rate) gets a resampler
            // for it there; a block swresample cannot convert is skipped, as a refused packet is.
            let samples = (try? resampler.interleavedStereo(frame)) ?? []
            if !samples.isEmpty { blocks.append(SoundBlock(time: time, samples: samples)) }
        }
        return blocks
    }

    package func close() {
        resampler.close()
        frame.close()
        codec.close()
    }

    deinit { close() }
}
