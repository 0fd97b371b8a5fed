import Compositor
import Foundation
import StoryEncode
import StoryMedia
import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// Issue 61 item 12: a recorded item of sound only (a voice note: AAC in an .m4a, made here by
/// ffmpeg) plays instead of failing its story: its sound is in the MP4, its progress segment
/// runs for the sound's length, and the viewer moves on when it ends. What shows over it: the
/// story's poster when the storyboard gives one, else the file's cover art, else a still card
/// (`SoundCardPicture`: the story's id and a sound mark).
final class VoiceNoteTests: XCTestCase {
    var folder: ScratchFolder!
    static let width = 144, height = 256
    static let teal = RGBAColor(red: 0, green: 128, blue: 128), orange = RGBAColor(red: 255, green: 136, blue: 0)

    override func setUpWithError() throws {
        try LiveServers.require("ffmpeg")
        folder = ScratchFolder()
        // A 2.5 s voice note: a 440 Hz tone, AAC in an MP4 audio file, no picture at all.
        try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2.5", "-af", "volume=4",
                    "-c:a", "aac", "-b:a", "96k", folder.file("note.m4a")])
        try ffmpeg(["-f", "lavfi", "-i", "color=c=0x008080:s=90x160", "-frames:v", "1", folder.file("teal.jpg")])
        try ffmpeg(["-f", "lavfi", "-i", "color=c=0xff8800:s=90x160", "-frames:v", "1", folder.file("orange.jpg")])
        // The same note with cover art: a red picture attached to the file.
        try ffmpeg(["-f", "lavfi", "-i", "color=c=red:s=64x64", "-frames:v", "1", folder.file("red.jpg")])
        try ffmpeg(["-i", folder.file("note.m4a"), "-i", folder.file("red.jpg"), "-map", "0:a", "-map", "1:v", "-c", "copy",
                    "-disposition:v:0", "attached_pic", folder.file("cover.m4a")])
    }

    override func tearDown() { folder = nil }

    func board(_ story: String) throws -> Storyboard {
        try Storyboard.parse("""
        {"canvas": {"width": \(VoiceNoteTests.width), "height": \(VoiceNoteTests.height), "fps": 10}, "duration": 4,
         "stories": [\(story), {"id": "after", "items": [{"uri": "orange.jpg", "duration": 3}]}]}
        """, folder: folder.path)
    }

    func frame(_ output: ScratchFolder, _ n: Int) throws -> RGBAImage {
        try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, n))
    }

    func centre(_ picture: RGBAImage) -> RGBAColor { picture[VoiceNoteTests.width / 2, VoiceNoteTests.height / 2] }

    /// How much of the top row of segments is filled white: the progress segment's length.
    func filledSegment(_ picture: RGBAImage, board: Storyboard) -> Int {
        let scale = Double(VoiceNoteTests.width) / 720
        let row = Int(board.overlayInset * scale + max(2, 4 * scale) / 2)
        return (0..<picture.width).filter { picture[$0, row].red > 200 && picture[$0, row].green > 200 }.count
    }

    /// The MP4's sound, decoded back by ffmpeg: mono at 8 kHz.
    func clipSound(_ clip: String) throws -> [Float] {
        let raw = folder.file("sound.f32")
        try ffmpeg(["-i", clip, "-vn", "-ac", "1", "-ar", "8000", "-f", "f32le", raw])
        return try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    func rms(_ samples: ArraySlice<Float>) -> Double {
        (samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))).squareRoot()
    }

    /// Upward zero crossings per second.
    func frequency(_ samples: ArraySlice<Float>) -> Double {
        let crossings = zip(samples, samples.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        return Double(crossings) / (Double(samples.count) / 8000)
    }

    func testAVoiceNotePlaysOverItsStorysPosterIntoTheMP4() throws {
        let board = try board(#"{"id": "voice", "poster": "teal.jpg", "items": [{"uri": "note.m4a"}]}"#)
        let output = ScratchFolder()
        let (summary, trace, _) = try render(board, into: output) { $0.clip = ClipOptions(path: output.file("voice.mp4")) }
        XCTAssertEqual(summary.failedStories.map(\.id), [], "\(trace.map(\.jsonLine))")
        XCTAssertEqual(trace.of(.failed), [])

        // The poster, sharp (not the blurred, darkened loading card), under a running segment.
        let early = try frame(output, 5), late = try frame(output, 20)
        XCTAssertLessThan(centre(early).distance(to: VoiceNoteTests.teal), 30, "the poster shows: \(centre(early))")
        XCTAssertLessThan(centre(late).distance(to: VoiceNoteTests.teal), 30)
        let filledEarly = filledSegment(early, board: board), filledLate = filledSegment(late, board: board)
        XCTAssertGreaterThan(filledEarly, 5, "the segment has started")
        XCTAssertGreaterThan(filledLate, filledEarly * 3, "and runs with the sound: \(filledEarly) → \(filledLate)")

        // The trace: a first picture when the sound starts, which says what it shows; the item
        // ends with its sound (2.5 s), and the viewer moves on.
        let first = try XCTUnwrap(trace.of(.firstFrame, story: "voice").first)
        XCTAssertEqual(first.t, 0, accuracy: 1e-9)
        XCTAssertEqual(first.detail, "sound only: shown over the story's poster")
        let ended = try XCTUnwrap(trace.of(.ended, story: "voice").first)
        XCTAssertEqual(ended.t, 2.5, accuracy: 0.11)
        XCTAssertEqual(trace.of(.play, story: "after").count, 1, "the viewer moved on")
        XCTAssertEqual(TraceCheck.check(trace.map(\.jsonLine).joined(separator: "\n")), [])
        XCTAssertLessThan(centre(try frame(output, 35)).distance(to: VoiceNoteTests.orange), 30, "the next story")

        // The sound, read back from the MP4: the tone while the note plays, silence after.
        let sound = try clipSound(output.file("voice.mp4"))
        XCTAssertGreaterThan(sound.count, 8000 * 3)
        let playing = sound[4000..<16000]
        XCTAssertGreaterThan(rms(playing), 0.1, "the note is heard")
        XCTAssertEqual(frequency(playing), 440, accuracy: 10)
        XCTAssertLessThan(rms(sound[26000..<30000]), 0.01, "silence on the photo after it")
    }

    /// Without a poster, the file's own cover art shows.
    func testAVoiceNoteWithCoverArtShowsIt() throws {
        let output = ScratchFolder()
        let (summary, trace, _) = try render(try board(#"{"id": "voice", "items": [{"uri": "cover.m4a"}]}"#), into: output)
        XCTAssertEqual(summary.failedStories.map(\.id), [], "\(trace.map(\.jsonLine))")
        let shown = centre(try frame(output, 10))
        XCTAssertLessThan(shown.distance(to: RGBAColor(red: 255, green: 0, blue: 0)), 40, "the cover art: \(shown)")
        XCTAssertEqual(trace.of(.firstFrame, story: "voice").first?.detail, "sound only: shown over the file's cover art")
        XCTAssertEqual(try XCTUnwrap(trace.of(.ended, story: "voice").first).t, 2.5, accuracy: 0.11, "it lasts as its sound")
    }

    /// With neither, a still card: the story's id over a neutral ground with a sound mark; not
    /// the error card, not the background.
    func testAVoiceNoteWithNoPictureShowsTheSoundCard() throws {
        let output = ScratchFolder()
        let (summary, trace, _) = try render(try board(#"{"id": "voice", "items": [{"uri": "note.m4a"}]}"#), into: output) {
            $0.overlay = false
        }
        XCTAssertEqual(summary.failedStories.map(\.id), [], "\(trace.map(\.jsonLine))")
        XCTAssertEqual(trace.of(.firstFrame, story: "voice").first?.detail, "sound only: shown over a still card")
        let card = SoundCardPicture.render(width: VoiceNoteTests.width, height: VoiceNoteTests.height, title: "voice")
        XCTAssertEqual(try frame(output, 10).pixels, card.pixels, "the card, as drawn")
        XCTAssertEqual(try XCTUnwrap(trace.of(.ended, story: "voice").first).t, 2.5, accuracy: 0.11)
    }
}
