import Foundation
import XCTest

/// A story's own `music` (as a phone's music sticker): heard while its story is on screen, on
/// the story's time (silent while a finger holds it), ducked under the story's own voice only,
/// and not under another story; a bad block is an error at its JSON path.
final class StoryMusicTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    func makeMedia() throws {
        let ffmpeg = try TestPrograms.tool("ffmpeg")
        try ExternalProgram.run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:size=90x160", "-frames:v", "1",
                                         folder.file("quiet.png")])
        try ExternalProgram.run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:size=90x160:rate=10", "-f", "lavfi",
                                         "-i", "sine=frequency=440:sample_rate=48000", "-t", "1", "-c:v", "libx264",
                                         "-pix_fmt", "yuv420p", "-c:a", "aac", folder.file("voice.mp4")])
        try ExternalProgram.run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000", "-t", "10",
                                         "-c:a", "pcm_s16le", folder.file("song.wav")])
    }

    /// Renders `stories` (JSON) for 4 s at 10 fps with `script`, cuts between stories; the MP4.
    func render(_ stories: String, script: String = "[]", name: String) throws -> (mp4: String, result: CommandLineRunner.Outcome) {
        try makeMedia()
        let board = folder.write("\(name).json", Array("""
        {"canvas": {"width": 90, "height": 160, "fps": 10}, "duration": 4, "transition": {"style": "cut"},
         "stories": \(stories), "script": \(script)}
        """.utf8))
        let mp4 = folder.file("\(name).mp4")
        return (mp4, try cli.run(["render", board, "--no-png", "--quiet", "--mp4", mp4, "--output", folder.file(name)]))
    }

    func testAStorysSongPlaysWithItsStoryOnly() throws {
        let (mp4, result) = try render("""
        [{"id": "song", "music": {"uri": "song.wav", "volume": 0.5}, "items": [{"uri": "quiet.png", "duration": 2}]},
         {"id": "quiet", "items": [{"uri": "quiet.png", "duration": 3}]}]
        """, name: "own")
        XCTAssertEqual(result.status, 0, result.stderr)
        let during = try MusicBedTests.musicLevel(mp4, from: 0.3, for: 1.4), after = try MusicBedTests.musicLevel(mp4, from: 2.4, for: 1.4)
        XCTAssertGreaterThan(during, -40, "the song while its story shows")
        XCTAssertLessThan(after, during - 30, "and not after it: \(after) dB against \(during)")
    }

    /// Held from 1 s to 2 s, the story's time stands still, and its song is silent; then it
    /// goes on. Another story's voice does not duck it; its own does.
    func testTheSongPausesWithAHoldAndDucksUnderItsOwnVoice() throws {
        let (held, result) = try render("""
        [{"id": "song", "music": {"uri": "song.wav", "volume": 0.5}, "items": [{"uri": "quiet.png", "duration": 4}]}]
        """, script: #"[{"at": 1, "action": "hold", "for": 1}]"#, name: "held")
        XCTAssertEqual(result.status, 0, result.stderr)
        let before = try MusicBedTests.musicLevel(held, from: 0.3, for: 0.6), holding = try MusicBedTests.musicLevel(held, from: 1.2, for: 0.6)
        let resumed = try MusicBedTests.musicLevel(held, from: 2.3, for: 0.6)
        XCTAssertLessThan(holding, before - 30, "silent while held: \(holding) dB against \(before)")
        XCTAssertEqual(resumed, before, accuracy: 2, "on again after the hold")
        let (voiced, voicedResult) = try render("""
        [{"id": "talk", "music": {"uri": "song.wav", "volume": 0.5}, "items": [{"uri": "voice.mp4"}, {"uri": "quiet.png", "duration": 3}]}]
        """, name: "voiced")
        XCTAssertEqual(voicedResult.status, 0, voicedResult.stderr)
        let underVoice = try MusicBedTests.musicLevel(voiced, from: 0.4, for: 0.5), alone = try MusicBedTests.musicLevel(voiced, from: 2, for: 1)
        XCTAssertGreaterThanOrEqual(alone - underVoice, 10, "ducked \(alone - underVoice) dB under its own voice")
    }

    func testABadSongBlockIsAnErrorAtItsPath() throws {
        let (_, result) = try render("""
        [{"id": "song", "music": {"volume": 0.5}, "items": [{"uri": "quiet.png", "duration": 2}]}]
        """, name: "bad")
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("stories[0].music"), result.stderr)
    }
}
