import StoryPlayback

/// One frame's share of the MP4's sound: what the stories on screen gave at once, and the live
/// stories' parts, read later.
///
/// A live stream's sound arrives beside its pictures, not with them: a muxer interleaves audio
/// up to a few hundred milliseconds away from the video of the same time, while a live player
/// holds only a picture or two ahead of the one shown. So the live parts are read `lagSeconds`
/// of frames later, when the decode thread has read that far on.
struct FrameSound {
    var count: Int
    var ready: [Float]
    var live: [LiveSoundTake] = []

    /// How many seconds of frames a live part waits before it is read.
    static let lagSeconds = 0.5

    init(count: Int) {
        self.count = count
        ready = [Float](repeating: 0, count: count * 2)
    }

    /// Adds an item's sound at `gain` (its share of the screen).
    mutating func add(_ sound: ItemSound, gain: Float) {
        switch sound {
        case .samples(let samples):
            for i in 0..<min(ready.count, samples.count) { ready[i] += samples[i] * gain }
        case .live(var take):
            take.gain = gain
            live.append(take)
        }
    }

    /// Adds another mix (a story's sound with its song) at `gain`, its live parts with it.
    mutating func add(_ other: FrameSound, gain: Float) {
        for i in 0..<min(ready.count, other.ready.count) { ready[i] += other.ready[i] * gain }
        for var take in other.live {
            take.gain *= gain
            live.append(take)
        }
    }

    var isComplete: Bool { live.isEmpty }

    /// The mixed samples, the live parts read now.
    func resolved() -> [Float] {
        var mixed = ready
        for take in live {
            let samples = take.samples(count: count)
            for i in 0..<mixed.count { mixed[i] += samples[i] * take.gain }
        }
        return mixed
    }
}
