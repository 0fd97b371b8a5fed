import Foundation

/// Who is speaking in a room, from the sound itself, decided the way Jitsi decides it: levels
/// are measured over short windows, decisions come at a slower pace, and a challenger takes over
/// only when it is clearly louder for long enough, so a cough does not switch the view.
///
/// The numbers (README, "Live rooms"):
/// - a level is the RMS of a participant's sound over a 100 ms window, in dBFS;
/// - a participant is speaking while its window is above -50 dBFS;
/// - a decision every 300 ms compares each participant's mean RMS over the last 300 ms;
/// - a challenger becomes dominant when it is louder than the dominant speaker by 1.2× (RMS,
///   about 1.6 dB) in every decision for 600 ms (two decisions in a row);
/// - silence keeps the last dominant speaker.
struct DominantSpeaker {
    static let window = 0.1
    static let windowsPerDecision = 3
    static let speakingThreshold = -50.0
    static let margin = 1.2
    /// Decisions in a row a challenger must win: 600 ms at one decision every 300 ms.
    static let decisionsToWin = 2

    private(set) var dominant: String?
    /// The last window's level of each participant, in dBFS (-infinity for silence).
    private(set) var levels: [String: Double] = [:]
    private var recent: [String: [Double]] = [:]
    private var windowsSinceDecision = 0
    private var challenger: (id: String, wins: Int)?

    /// Whether a participant's last window was above the speaking threshold.
    func isSpeaking(_ id: String) -> Bool { (levels[id] ?? -.infinity) > DominantSpeaker.speakingThreshold }

    /// Adds one 100 ms window: the RMS (linear, 0…1) of each participant that has sound. Returns
    /// the new dominant speaker when this window's decision changed it.
    mutating func add(window rms: [String: Double]) -> String? {
        for (id, value) in rms {
            levels[id] = value > 0 ? 20 * log10(value) : -.infinity
            recent[id, default: []].append(value)
            if recent[id]!.count > DominantSpeaker.windowsPerDecision { recent[id]!.removeFirst() }
        }
        windowsSinceDecision += 1
        guard windowsSinceDecision >= DominantSpeaker.windowsPerDecision else { return nil }
        windowsSinceDecision = 0
        return decide()
    }

    private mutating func decide() -> String? {
        let loudness = recent.mapValues { $0.reduce(0, +) / Double(max($0.count, 1)) }
        let speaking = loudness.filter { 20 * log10(max($0.value, 1e-12)) > DominantSpeaker.speakingThreshold }
        // The loudest speaking participant other than the dominant one; ties go to the id, so the
        // outcome does not depend on dictionary order.
        guard let (loudest, level) = speaking.filter({ $0.key != dominant })
            .max(by: { ($0.value, $1.key) < ($1.value, $0.key) }) else {
            challenger = nil
            return nil
        }
        let current = dominant.flatMap { loudness[$0] } ?? 0
        guard level > current * DominantSpeaker.margin else {
            challenger = nil
            return nil
        }
        let wins = challenger?.id == loudest ? challenger!.wins + 1 : 1
        guard wins >= DominantSpeaker.decisionsToWin else {
            challenger = (loudest, wins)
            return nil
        }
        challenger = nil
        dominant = loudest
        return loudest
    }

    /// The RMS of interleaved stereo samples, both channels together.
    static func rms(_ samples: [Float]) -> Double {
        guard !samples.isEmpty else { return 0 }
        var sum = 0.0
        for sample in samples { sum += Double(sample) * Double(sample) }
        return (sum / Double(samples.count)).squareRoot()
    }
}
