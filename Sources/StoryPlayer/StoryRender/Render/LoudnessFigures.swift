import StoryModel

/// What `--loudness` did to the MP4's sound: `"loudness"` in `summary.json`.
public struct LoudnessFigures: Sendable, Equatable {
    /// LUFS.
    public var targetLUFS: Double
    /// dBTP.
    public var truePeakLimit: Double
    /// The mix as rendered, before any gain: nil when it is silent (nothing above −70 LUFS).
    public var inputLUFS: Double?
    /// dBTP; −infinity (null in JSON) for digital silence.
    public var inputTruePeak: Double
    /// The one gain applied to the whole clip, in dB (0 for silence).
    public var gainDB: Double
    /// Measured on the MP4 as written (its AAC decoded), so what a player plays.
    public var outputLUFS: Double?
    public var outputTruePeak: Double
    /// The gain was lowered so the true peak stays under the limit: the clip is quieter than
    /// the target.
    public var limitedByTruePeak: Bool

    /// The object, keys in a fixed order; what cannot be a number (silence) is null.
    var json: String {
        "{\"target_lufs\": \(number(targetLUFS)), \"true_peak_limit_dbtp\": \(number(truePeakLimit)), "
            + "\"input_lufs\": \(number(inputLUFS)), \"input_true_peak_dbtp\": \(number(inputTruePeak)), "
            + "\"gain_db\": \(number(gainDB)), \"output_lufs\": \(number(outputLUFS)), "
            + "\"output_true_peak_dbtp\": \(number(outputTruePeak)), \"limited_by_true_peak\": \(limitedByTruePeak)}"
    }

    /// What the user is told (a notice: stderr and `notices`) when the clip did not reach its
    /// target; nil when it did.
    var notice: String? {
        if inputLUFS == nil { return "--loudness: the clip's sound is silent (below -70 LUFS), so no gain was applied" }
        guard limitedByTruePeak else { return nil }
        return "--loudness: the true peak limit (\(JSONText.number(truePeakLimit)) dBTP) held the gain to "
            + "\(JSONText.number(gainDB)) dB, so the clip is at \(number(outputLUFS ?? inputLUFS.map { $0 + gainDB })) LUFS, "
            + "quieter than the target \(JSONText.number(targetLUFS)) LUFS"
    }

    private func number(_ value: Double?) -> String { value.map(JSONText.number) ?? "null" }
}
