import Foundation
import StoryMedia
import StoryModel

/// The storyboard's music under the stories' sound, frame by frame: its samples read once, at
/// the render's start, then looped or cut, faded, and ducked while a story's own sound plays.
///
/// Ducking follows the stories' sound of each frame as a sidechain compressor would, in
/// decibels: down by `duck` over `attack` once a story's sound is above `threshold`, back up over
/// `release` once it is not; the gain moves sample by sample within a frame, so no step is heard.
final class MusicMix {
    let bed: MusicBed
    /// 48 kHz interleaved stereo from `bed.start` on.
    private let samples: [Float]
    /// When the render ends, for the fade out (the storyboard's `duration`); nil: no fade out.
    private let end: Double?
    /// The ducking gain at the end of the last frame mixed, dB (0: not ducked).
    private var duckLevel = 0.0
    private var lastTime: Double?

    static let rate = Double(ItemAudio.rate)
    /// At most this much of a song is read (a longer one loops or ends there): 5 minutes,
    /// 115 MB of samples, read once rather than streamed beside the stories' players.
    static let longest = 5.0 * 60
    static let attack = 0.15, release = 0.6
    /// A frame whose stories' sound has a mean square above this (−50 dBFS) ducks the music.
    static let threshold = Float(pow(10, -50.0 / 10))

    /// Reads the music's sound (`ItemAudio`) from `bed.start` on. Throws when it cannot be read
    /// or holds no sound.
    init(_ bed: MusicBed, end: Double?, limits: DecodeLimits) throws(MediaError) {
        self.bed = bed
        self.end = end
        let sound = try ItemAudio(source: bed.source, limits: limits)
        defer { sound.close() }
        var read: [Float] = []
        let first = Int((bed.start * Self.rate).rounded()) * 2, wanted = Int(Self.longest * Self.rate) * 2
        while read.count < wanted, let block = try sound.nextBlock() {
            let at = Int((block.time * Self.rate).rounded()) * 2
            let skip = max(0, first - at)
            if skip < block.samples.count { read += block.samples[skip...] }
        }
        guard !read.isEmpty else { throw MediaError(.decode, "\(bed.source) holds no sound after \(bed.start) s") }
        samples = Array(read.prefix(wanted))
    }

    /// Whether time `t` is later than the last this music was asked at (a story's time stands
    /// still while a finger holds it, and its song with it); a `t` from before is a story shown
    /// again, whose song starts over.
    func advances(to t: Double) -> Bool {
        guard let lastTime else { return true }
        if t < lastTime - 1e-6 {
            (self.lastTime, duckLevel) = (nil, 0)
            return true
        }
        return t > lastTime + 1e-6
    }

    /// Adds the music at timeline time `t` to `sound`, the frame's mix of the stories.
    func add(to sound: inout FrameSound, at t: Double) {
        let storySpeaks = !sound.live.isEmpty || Self.meanSquare(sound.ready) > Self.threshold
        let seconds = Double(sound.count) / Self.rate
        let from = duckLevel
        duckLevel = moved(duckLevel, towards: storySpeaks ? bed.duck : 0, over: lastTime.map { max(0, t - $0) } ?? seconds)
        lastTime = t
        let first = Int((t * Self.rate).rounded())
        for i in 0..<sound.count {
            guard let frame = sampleIndex(first + i) else { break }
            let fraction = Double(i + 1) / Double(sound.count)
            let decibels = from + (duckLevel - from) * fraction
            let gain = Float(bed.volume * fade(at: t + Double(i) / Self.rate) * pow(10, decibels / 20))
            sound.ready[2 * i] += samples[2 * frame] * gain
            sound.ready[2 * i + 1] += samples[2 * frame + 1] * gain
        }
    }

    /// The stereo frame of the music at timeline sample `n`: looped, or nil past its end.
    private func sampleIndex(_ n: Int) -> Int? {
        let frames = samples.count / 2
        guard n >= 0 else { return nil }
        if n < frames { return n }
        return bed.loops ? n % frames : nil
    }

    /// The fades' gain at `t`: up from 0 over `fadeIn`, down to 0 over `fadeOut` before `end`.
    private func fade(at t: Double) -> Double {
        var gain = 1.0
        if bed.fadeIn > 0 { gain *= min(1, max(0, t / bed.fadeIn)) }
        if bed.fadeOut > 0, let end { gain *= min(1, max(0, (end - t) / bed.fadeOut)) }
        return gain
    }

    /// `level` moved towards `target` (dB) by as much as `seconds` of attack or release allow:
    /// the whole of `duck` in `attack` going down, in `release` coming back.
    private func moved(_ level: Double, towards target: Double, over seconds: Double) -> Double {
        guard level != target else { return level }
        let time = target < level ? Self.attack : Self.release
        let step = abs(bed.duck) * seconds / time
        return target < level ? max(target, level - step) : min(target, level + step)
    }

    private static func meanSquare(_ samples: [Float]) -> Float {
        guard !samples.isEmpty else { return 0 }
        return samples.reduce(0) { $0 + $1 * $1 } / Float(samples.count)
    }
}
