import Foundation
@testable import StoryMedia
@testable import StoryPlayback
import StoryPlayerTestSupport
import XCTest

/// A live story's sound, as the MP4 reads it: at the live clock's position and speed.
final class LiveSoundTests: XCTestCase {
    /// A stereo sine of `frequency` Hz from stream time `start`, in blocks of 1024 frames (AAC's).
    /// `millisecondStamps` stamps each block as FLV does, rounded to the millisecond.
    func tone(_ frequency: Double, from start: Double, seconds: Double, into sound: LiveSound, epoch: Int = 0,
              millisecondStamps: Bool = false) {
        let frames = Int(seconds * Tone.rate)
        for blockStart in stride(from: 0, to: frames, by: 1024) {
            var samples: [Float] = []
            for i in blockStart..<min(blockStart + 1024, frames) {
                let value = Float(0.5 * sin(2 * Double.pi * frequency * (start + Double(i) / Tone.rate)))
                samples += [value, value]
            }
            let time = start + Double(blockStart) / Tone.rate
            sound.append(SoundBlock(time: millisecondStamps ? (time * 1000).rounded() / 1000 : time, samples: samples), epoch: epoch)
        }
    }

    func testTheSoundFollowsTheSpeedOfThePictures() {
        let sound = LiveSound()
        tone(440, from: 10, seconds: 3, into: sound)
        for speed in [1.0, 1.03, 0.97] {
            let samples = sound.samples(from: 10.5, count: 48_000, speed: speed, epoch: 0)
            XCTAssertEqual(Tone.frequency(samples), 440 * speed, accuracy: 1, "at speed \(speed)")
        }
    }

    func testBlocksJoinWithoutAClick() {
        let sound = LiveSound()
        // Stamped to the millisecond, as FLV does: an AAC block lasts 21.33 ms, so the stamps
        // leave slivers and overlaps between blocks that must not be heard.
        tone(440, from: 0, seconds: 1, into: sound, millisecondStamps: true)
        let samples = sound.samples(from: 0.01, count: 24_000, speed: 1.03, epoch: 0)
        let left = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
        // A 440 Hz sine at 0.5 moves at most 2π·440·0.5/48000 ≈ 0.029 a sample (×1.03).
        let steepest = (1..<left.count).map { abs(left[$0] - left[$0 - 1]) }.max() ?? 1
        XCTAssertLessThan(steepest, 0.031, "no jump at the joins of the 1024-sample blocks")
    }

    func testNothingHeardIsSilence() {
        let sound = LiveSound()
        tone(440, from: 5, seconds: 1, into: sound, epoch: 1)
        let before = sound.samples(from: 4, count: 4800, speed: 1, epoch: 1)
        XCTAssertEqual(before.map(abs).max(), 0, "before the first sound")
        let otherLine = sound.samples(from: 5.2, count: 4800, speed: 1, epoch: 0)
        XCTAssertEqual(otherLine.map(abs).max(), 0, "sound of another time line (before a discontinuity) is not this one's")
        let after = sound.samples(from: 6.5, count: 4800, speed: 1, epoch: 1)
        XCTAssertEqual(after.map(abs).max(), 0, "after the last sound heard")
    }

    /// After a jump back in the timestamps (FFmpeg's DASH demuxer going back to an older
    /// segment), the sound of the older times is found again, not silence until the newest passes.
    func testSoundIsFoundAfterAJumpBack() {
        let sound = LiveSound()
        tone(440, from: 10, seconds: 1, into: sound)
        tone(440, from: 6, seconds: 1, into: sound)
        XCTAssertGreaterThan(sound.samples(from: 6.2, count: 4800, speed: 1, epoch: 0).map(abs).max() ?? 0, 0.4)
    }

    func testOnlyTheLastSecondsAreKept() {
        let sound = LiveSound()
        tone(440, from: 0, seconds: LiveSound.keptSeconds + 5, into: sound)
        XCTAssertEqual(sound.samples(from: 1, count: 4800, speed: 1, epoch: 0).map(abs).max(), 0, "the oldest sound is let go")
        XCTAssertGreaterThan(sound.samples(from: LiveSound.keptSeconds + 4, count: 4800, speed: 1, epoch: 0).map(abs).max() ?? 0, 0.4)
    }
}
