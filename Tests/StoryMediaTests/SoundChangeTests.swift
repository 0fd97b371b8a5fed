import Foundation
@testable import StoryMedia
@testable import StoryModel
import StoryPlayerTestSupport
import XCTest

/// A source whose sound changes mid-stream, as a live publisher's may (an app that switches
/// from stereo at 48 kHz to mono at 44.1 kHz): `ResampleContext` sets itself up again for the
/// new sound, so the second part is heard at its own pitch, neither skipped (silence) nor
/// read as the first part's layout (noise, or the wrong pitch).
final class SoundChangeTests: XCTestCase {
    func testSoundThatTurnsMonoAtAnotherRateIsHeardAtItsPitch() throws {
        let folder = ScratchFolder()
        // Two MPEG-TS parts joined byte for byte: one stream whose AAC changes at 1 s.
        let parts = [("stereo.ts", ["sine=frequency=440:sample_rate=48000"], ["-ac", "2"], "0"),
                     ("mono.ts", ["sine=frequency=880:sample_rate=44100"], ["-ac", "1"], "1")]
        var joined = Data()
        for (name, source, channels, offset) in parts {
            try ExternalProgram.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i"] + source + ["-t", "1"] + channels
                + ["-c:a", "aac", "-output_ts_offset", offset, "-f", "mpegts", folder.file(name)])
            joined.append(try Data(contentsOf: URL(fileURLWithPath: folder.file(name))))
        }
        try joined.write(to: URL(fileURLWithPath: folder.file("changes.ts")))
        let audio = try ItemAudio(source: MediaSource(uri: folder.file("changes.ts"), relativeTo: "/"), limits: DecodeLimits())
        defer { audio.close() }
        for (from, pitch) in [(0.2, 440.0), (1.2, 880.0)] {
            let samples = audio.samples(from: from, count: Int(0.6 * Tone.rate))
            let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
            XCTAssertGreaterThan(peak, 0.05, "\(from) s: the sound is heard")
            let frequency = Tone.frequency(samples)
            XCTAssertEqual(frequency, pitch, accuracy: pitch * 0.02, "\(from) s: the tone's pitch")
            // Mono plays at its own level on both channels (the upmix), as stereo does.
            let left = stride(from: 0, to: samples.count, by: 2).map { abs(samples[$0]) }.max() ?? 0
            let right = stride(from: 1, to: samples.count, by: 2).map { abs(samples[$0]) }.max() ?? 0
            XCTAssertEqual(left, right, accuracy: 0.01, "\(from) s: both channels")
        }
    }
}
