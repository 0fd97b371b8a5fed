import Foundation
import StoryMedia
import Synchronization

/// What an EBU R128 meter measured over a whole sound.
package struct LoudnessMeasurement: Sendable, Equatable {
    /// Integrated loudness (BS.1770, gated), in LUFS; nil when nothing was above the absolute
    /// gate (−70 LUFS): silence has no loudness, and no gain can bring it to a target.
    package var integrated: Double?
    /// The highest true peak (4x oversampled) of either channel, in dBTP; −infinity for
    /// digital silence.
    package var truePeak: Double
}

// MARK: - The meter

/// Measures 48 kHz stereo float sound as it is added, through a `FilterGraph`
/// `abuffer → ebur128=peak=true:metadata=1 → abuffersink`: FFmpeg's own EBU R128 meter, the one
/// `ffmpeg -af ebur128` runs, so our figures and the user's agree.
///
/// The filter says what it measured in each frame's metadata (`lavfi.r128.I`, and the running
/// true peak of each channel, `lavfi.r128.true_peaks_chN`, linear), printed with three
/// decimals: the true peak is known to ±0.0005 of full scale (±0.05 dB at −1 dBTP), and at
/// least the sample peak, which is kept here exactly.
///
/// Used by one thread at a time.
package final class LoudnessMeter {
    private var graph: FilterGraph?
    private let block = Frame()
    private let measured = Frame()
    private var samplesAdded: Int64 = 0
    private var integrated = LoudnessMeter.absoluteGate
    private var truePeak = 0.0
    private var samplePeak: Float = 0
    private var finished = false

    /// Samples (per channel) sent to the graph at a time: 100 ms, the meter's own step.
    static let blockSamples = 4800
    /// ebur128 reports this until a 400 ms block is above it: nothing was measured.
    static let absoluteGate = -70.0

    /// Meters made and not yet freed, process-wide (see `FormatContext.alive`).
    package static let alive = Atomic<Int>(0)

    package init() throws(MediaError) {
        // ebur128 prints its summary at info level when the graph is freed; errors only.
        FFmpegLogging.configureOnce()
        // The meter's arithmetic is cheap; a thread of its own would cost more than it saves.
        graph = try FilterGraph(filters: "ebur128=peak=true:metadata=1", input: .stereoSound(rate: ItemAudio.rate), threads: 1,
                                name: "the loudness meter")
        LoudnessMeter.alive.add(1, ordering: .relaxed)
        let status = block.allocateStereoSound(samples: Int32(LoudnessMeter.blockSamples), rate: Int32(ItemAudio.rate))
        guard status >= 0 else { throw MediaError(.convert, "cannot allocate the loudness meter's frame", averror: status) }
    }

    deinit { close() }

    func close() {
        guard let graph else { return }
        graph.close()
        self.graph = nil
        LoudnessMeter.alive.subtract(1, ordering: .relaxed)
    }

    // MARK: - Measuring

    /// Measures interleaved stereo samples following the ones before:
    /// `av_buffersrc_add_frame_flags` a block at a time, then `av_buffersink_get_frame` for what
    /// the meter says.
    package func add(_ samples: UnsafeBufferPointer<Float>) throws(MediaError) {
        precondition(!finished, "sound added to a finished loudness meter")
        precondition(samples.count % 2 == 0, "interleaved stereo has an even number of samples")
        var offset = 0
        while offset < samples.count {
            let count = min(LoudnessMeter.blockSamples, (samples.count - offset) / 2)
            let writable = block.makeWritable()
            guard writable >= 0 else { throw MediaError(.convert, "cannot measure the loudness", averror: writable) }
            guard let left = block.plane(0)?.rows, let right = block.plane(1)?.rows else {
                throw MediaError(.convert, "cannot measure the loudness")
            }
            let leftSamples = UnsafeMutableRawPointer(left).assumingMemoryBound(to: Float.self)
            let rightSamples = UnsafeMutableRawPointer(right).assumingMemoryBound(to: Float.self)
            var peak = samplePeak
            for i in 0..<count {
                let l = samples[offset + 2 * i], r = samples[offset + 2 * i + 1]
                leftSamples[i] = l
                rightSamples[i] = r
                peak = max(peak, abs(l), abs(r))
            }
            samplePeak = peak
            block.sampleCount = Int32(count)
            block.pts = samplesAdded
            samplesAdded += Int64(count)
            offset += count * 2
            try send(block)
        }
    }

    /// Ends the sound (`av_buffersrc_add_frame_flags` with no frame) and says what was measured.
    package func finish() throws(MediaError) -> LoudnessMeasurement {
        if !finished {
            finished = true
            try send(nil)
        }
        let peak = max(truePeak, Double(samplePeak))
        return LoudnessMeasurement(integrated: integrated > LoudnessMeter.absoluteGate ? integrated : nil,
                                   truePeak: peak > 0 ? 20 * log10(peak) : -.infinity)
    }

    private func send(_ frame: Frame?) throws(MediaError) {
        guard let graph else { preconditionFailure("measuring after close()") }
        var status = graph.push(frame)
        guard status >= 0 else { throw MediaError(.convert, "cannot measure the loudness", averror: status) }
        while true {
            status = graph.pull(into: measured)
            if status == FFmpegError.tryAgain || status == FFmpegError.endOfFile { return }
            guard status >= 0 else { throw MediaError(.convert, "cannot measure the loudness", averror: status) }
            read(measured)
        }
    }

    /// The figures ebur128 left in a frame's metadata (`Frame.metadata`): only frames in which a
    /// 100 ms step ended carry them, each with the values so far.
    private func read(_ frame: Frame) {
        func value(_ key: String) -> Double? { frame.metadata(key).flatMap { Double($0) } }
        if let loudness = value("lavfi.r128.I") { integrated = loudness }
        for channel in 0..<2 {
            if let peak = value("lavfi.r128.true_peaks_ch\(channel)") { truePeak = max(truePeak, peak) }
        }
    }
}
