import StoryMedia

/// A tone's frequency, as the sound tests measure what a player mixed: the mixer's rate, and the
/// left channel's upward zero crossings.
public enum Tone {
    public static let rate = Double(ItemAudio.rate)

    /// The frequency of the left channel, from its upward zero crossings.
    public static func frequency(_ samples: [Float]) -> Double {
        let left = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
        let crossings = (1..<left.count).filter { left[$0 - 1] < 0 && left[$0] >= 0 }
        guard let first = crossings.first, let last = crossings.last, last > first else { return 0 }
        return Double(crossings.count - 1) / (Double(last - first) / rate)
    }
}
