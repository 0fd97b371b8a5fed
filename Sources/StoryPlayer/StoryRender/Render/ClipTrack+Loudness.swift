import Foundation
import StoryEncode
import StoryMedia

/// `--loudness`: the clip's sound in two passes (the MP4's, and a WebM's beside it). While the frames are drawn and encoded, the mix
/// is measured (FFmpeg's EBU R128 meter) and held in memory (48 kHz stereo float: 384 KB a
/// second, about 23 MB a minute of clip); at the end one linear gain brings it to the target
/// and it is written after the last frame. One gain for the whole clip keeps its dynamics as
/// mixed (no compressor, unlike loudnorm's dynamic mode), so a quiet story stays quieter than
/// a loud one; when that gain would put the true peak over the limit, it is lowered and the
/// clip ends up quieter than the target (`limitedByTruePeak`, and a notice), as loudnorm's
/// linear mode does with the same figures.
///
/// The muxer keeps the encoded video until the sound comes (`ClipOptions.soundAfterFrames`),
/// so the file is interleaved as one written in a single pass.
struct LoudnessPass {
    let target: LoudnessTarget
    private let meter: LoudnessMeter
    private var held: [Float] = []

    /// The ceiling the gain aims under, a little below the limit: AAC's quantisation moves the
    /// decoded peaks (about +0.3 dB measured on the limited test clip), and the limit is what
    /// the decoded file must keep.
    static let truePeakCeiling = LoudnessTarget.truePeakLimit - 0.5
    /// Interleaved samples per job written to the clip queue: one second, so the writer encodes
    /// while the next second is gained.
    static let chunk = 2 * ItemAudio.rate

    init(target: LoudnessTarget) throws(MediaError) {
        self.target = target
        meter = try LoudnessMeter()
    }

    /// The first pass: measures the frame's sound and keeps it.
    mutating func hold(_ audio: [Float]) throws(MediaError) {
        guard !audio.isEmpty else { return }
        let meter = meter
        try audio.withUnsafeBufferPointer { (samples) throws(MediaError) in try meter.add(samples) }
        held += audio
    }

    /// The second pass: the gain, and the sound written at it into each of `queues` (the frames
    /// are all there). The output's figures are measured once the file is finished (`measured(_:)`).
    mutating func release(into queues: [ClipQueue]) throws(MediaError) -> LoudnessFigures {
        let input = try meter.finish()
        var figures = LoudnessFigures(targetLUFS: target.lufs, truePeakLimit: LoudnessTarget.truePeakLimit,
                                      inputLUFS: input.integrated, inputTruePeak: input.truePeak, gainDB: 0,
                                      outputLUFS: nil, outputTruePeak: -.infinity, limitedByTruePeak: false)
        if let loudness = input.integrated {
            figures.gainDB = target.lufs - loudness
            let ceiling = LoudnessPass.truePeakCeiling - input.truePeak
            if figures.gainDB > ceiling {
                figures.gainDB = ceiling
                figures.limitedByTruePeak = true
            }
        }
        let gain = Float(pow(10, figures.gainDB / 20))
        var start = 0
        while start < held.count {
            let end = min(held.count, start + LoudnessPass.chunk)
            let gained = held[start..<end].map { $0 * gain }
            for queue in queues { queue.submit(frame: nil, index: 0, audio: gained) }
            start = end
        }
        held = []
        return figures
    }

    /// The figures with the output as a player hears it: the finished MP4's sound, decoded.
    static func measured(_ figures: LoudnessFigures, clip path: String) throws(MediaError) -> LoudnessFigures {
        let output = try LoudnessMeter.measure(file: path)
        var figures = figures
        figures.outputLUFS = output.integrated
        figures.outputTruePeak = output.truePeak
        return figures
    }
}
