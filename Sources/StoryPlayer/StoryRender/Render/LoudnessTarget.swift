/// `--loudness`: the integrated loudness (EBU R128) the MP4's sound is brought to, with one
/// linear gain, its true peak kept at or below `truePeakLimit`.
public struct LoudnessTarget: Sendable, Equatable {
    /// LUFS.
    public var lufs: Double

    /// EBU R128's broadcast target (`--loudness ebu`).
    public static let ebu = LoudnessTarget(lufs: -23)
    /// The targets accepted: below −70 LUFS is the meter's silence gate; above −5 no real sound
    /// gets without a true peak over the limit.
    public static let accepted: ClosedRange<Double> = -70 ... -5
    /// dBTP: the ceiling streaming services ask for (−1 dBTP with a lossy codec after it).
    public static let truePeakLimit = -1.0

    public init(lufs: Double) {
        precondition(LoudnessTarget.accepted.contains(lufs), "a loudness target from -70 to -5 LUFS")
        self.lufs = lufs
    }

    /// `ebu`, or a number of LUFS in `accepted` ("-14"); nil for anything else.
    public init?(argument: String) {
        if argument.lowercased() == "ebu" {
            self = .ebu
            return
        }
        guard let lufs = Double(argument), LoudnessTarget.accepted.contains(lufs) else { return nil }
        self.init(lufs: lufs)
    }

    /// How the flag's value is described in usage errors.
    public static let spoken = "a loudness in LUFS from -70 to -5 (such as -14), or ebu (-23 LUFS)"
}
