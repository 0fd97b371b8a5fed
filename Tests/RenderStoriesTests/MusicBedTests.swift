import Foundation
import XCTest

/// The storyboard's `music` under the stories' sound: ducked while a story's voice plays (the
/// target: at least 10 dB), looped or cut, faded in; a file that cannot be read is a warning.
final class MusicBedTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    func makeMedia() throws {
        guard !FileManager.default.fileExists(atPath: folder.file("song.mp3")) else { return }
        let ffmpeg = try TestPrograms.tool("ffmpeg")
        // A story with a voice (440 Hz) for 2 s, a photo without sound, a 1.5 s song at 1 kHz.
        try ExternalProgram.run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:size=90x160:rate=10", "-f", "lavfi",
                                         "-i", "sine=frequency=440:sample_rate=48000", "-t", "2", "-c:v", "libx264",
                                         "-pix_fmt", "yuv420p", "-c:a", "aac", folder.file("voice.mp4")])
        try ExternalProgram.run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:size=90x160", "-frames:v", "1",
                                         folder.file("quiet.png")])
        try ExternalProgram.run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100", "-t", "1.5",
                                         "-c:a", "libmp3lame", folder.file("song.mp3")])
    }

    /// Renders the voice story, then the quiet one (a cut at 2 s), for 4 s under `music`.
    func render(_ music: String, name: String) throws -> (mp4: String, stderr: String) {
        try makeMedia()
        let board = folder.write("\(name).json", Array("""
        {"canvas": {"width": 90, "height": 160, "fps": 10}, "duration": 4, "transition": {"style": "cut"},
         "music": \(music),
         "stories": [{"id": "voice", "items": [{"uri": "voice.mp4"}]}, {"id": "quiet", "items": [{"uri": "quiet.png", "duration": 5}]}]}
        """.utf8))
        let mp4 = folder.file("\(name).mp4")
        let result = try cli.run(["render", board, "--no-png", "--quiet", "--mp4", mp4, "--output", folder.file(name)])
        XCTAssertEqual(result.status, 0, result.stderr)
        return (mp4, result.stderr)
    }

    /// The music's level (its 1 kHz band, ffmpeg's `bandpass` and `volumedetect`) from `start` for
    /// `seconds`, dB.
    func musicLevel(_ mp4: String, from start: Double, for seconds: Double) throws -> Double {
        try Self.musicLevel(mp4, from: start, for: seconds)
    }

    static func musicLevel(_ mp4: String, from start: Double, for seconds: Double) throws -> Double {
        let outcome = try ExternalProgram.outcome(TestPrograms.tool("ffmpeg"), [
            "-v", "info", "-ss", "\(start)", "-t", "\(seconds)", "-i", mp4,
            "-af", "bandpass=f=1000:width_type=q:w=8,volumedetect", "-vn", "-f", "null", "-",
        ])
        let report = String(decoding: outcome.stderr, as: UTF8.self)
        return try XCTUnwrap(report.firstMatch(of: /mean_volume: (-?[\d.]+) dB/).flatMap { Double($0.1) }, report)
    }

    func testTheMusicIsDuckedWhileAStoryVoiceOnlyAndLoops() throws {
        let (mp4, _) = try render(#"{"uri": "song.mp3", "volume": 0.5}"#, name: "ducked")
        let underVoice = try musicLevel(mp4, from: 0.5, for: 1), alone = try musicLevel(mp4, from: 2.6, for: 1)
        XCTAssertGreaterThan(alone, -40, "the music plays after the voice: looped past its 1.5 s")
        XCTAssertGreaterThanOrEqual(alone - underVoice, 10, "ducked \(alone - underVoice) dB under the voice (target: 10)")
        let (flat, _) = try render(#"{"uri": "song.mp3", "volume": 0.5, "duck": 0}"#, name: "flat")
        XCTAssertEqual(try musicLevel(flat, from: 0.5, for: 0.8), try musicLevel(flat, from: 2.6, for: 0.8), accuracy: 1.5,
                       "duck 0: as loud under the voice")
    }

    func testWithoutLoopTheMusicEndsAndAFadeInStartsFromSilence() throws {
        let (once, _) = try render(#"{"uri": "song.mp3", "loop": false, "duck": 0}"#, name: "once")
        XCTAssertGreaterThan(try musicLevel(once, from: 0.3, for: 0.8), -40)
        XCTAssertLessThan(try musicLevel(once, from: 2.5, for: 1), -80, "silence after the song's end")
        let (faded, _) = try render(#"{"uri": "song.mp3", "fade_in": 2, "duck": 0}"#, name: "faded")
        let start = try musicLevel(faded, from: 0, for: 0.4), later = try musicLevel(faded, from: 2.2, for: 0.8)
        XCTAssertGreaterThan(later - start, 10, "fading in: \(start) dB, then \(later) dB")
    }

    func testAMusicFileThatCannotBeReadIsAWarningAndTheRenderGoesOn() throws {
        let (mp4, _) = try render(#"{"uri": "missing.mp3"}"#, name: "missing")
        XCTAssertTrue(FileManager.default.fileExists(atPath: mp4))
        let summary = try String(contentsOfFile: folder.file("missing/summary.json"), encoding: .utf8)
        XCTAssertTrue(summary.contains("music ") && summary.contains("missing.mp3: cannot open"), summary)
        let bad = folder.write("bad.json", Array(#"{"music": {"uri": "song.mp3", "volume": 5, "tempo": 2}, "stories": [{"items": [{"uri": "a.png"}]}]}"#.utf8))
        let refused = try cli.run(["render", bad, "--quiet", "--output", folder.file("bad")])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("music.volume"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("music.tempo"), refused.stderr)
    }
}
