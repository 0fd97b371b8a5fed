import Compositor
import Foundation
import StoryModel
import StoryPlayback
import StoryRender
import StoryTrace
@testable import StoryMedia
import StoryPlayerTestSupport
import XCTest

/// Broken media fails its story, shows the error card, is listed in the summary, and the
/// render goes on.
final class BadInputTests: XCTestCase {
    /// A render of [broken story, good story], swiping to the good one at 0.5 s.
    func renderWithBrokenFirstStory(_ uri: String, folder: ScratchFolder) throws -> (RenderSummary, [TraceEvent], ScratchFolder) {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10, "background": "#000000"}, "duration": 1.2,
         "stories": [{"id": "broken", "items": [{"uri": "\(uri)"}]},
                     {"id": "good", "items": [{"uri": "\(Fixture.path("counter.mp4"))"}]}],
         "script": [{"at": 0.5, "action": "swipe", "direction": "next"}]}
        """, folder: folder.path)
        return try render(board)
    }

    func assertFailsGracefully(_ uri: String, folder: ScratchFolder, errorContains expected: String,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let (summary, events, output) = try renderWithBrokenFirstStory(uri, folder: folder)
        let failed = events.of(.failed, story: "broken")
        XCTAssertEqual(failed.count, 1, "one failed event", file: file, line: line)
        let message = failed.first?.error ?? ""
        XCTAssertTrue(message.localizedCaseInsensitiveContains(expected), "error was: \(message)", file: file, line: line)
        XCTAssertEqual(summary.failedStories.map(\.id), ["broken"], file: file, line: line)
        XCTAssertEqual(summary.frames, 12, "the render goes on", file: file, line: line)
        XCTAssertTrue(events.of(.firstFrame, story: "good").count == 1, "the next story plays", file: file, line: line)
        let card = try RGBAImage(contentsOfPNG: output.file("frame-000000.png"))
        XCTAssertEqual(card[36, 64], RGBAColor(red: 0x3a, green: 0x12, blue: 0x18), "the error card shows", file: file, line: line)
        let json = try String(contentsOfFile: output.file("summary.json"), encoding: .utf8)
        XCTAssertTrue(json.contains("\"failed_stories\": [\"broken\"]"), json, file: file, line: line)
        // Named once, by its JSON path: the item standing in as its own poster is not noted again.
        XCTAssertTrue(json.contains("\"errors\": [\"stories[0].items[0]: "), json, file: file, line: line)
        XCTAssertFalse(summary.notices.contains { $0.contains("poster not loaded") }, "\(summary.notices)", file: file, line: line)
        XCTAssertFalse(summary.notices.contains { $0.contains("not played") }, "\(summary.notices)", file: file, line: line)
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [], file: file, line: line)
    }

    func testMissingFile() throws {
        let folder = ScratchFolder()
        try assertFailsGracefully("nowhere.mp4", folder: folder, errorContains: "No such file")
    }

    func testGarbageBytes() throws {
        let folder = ScratchFolder()
        var generator = SplitMix64(seed: 3)
        folder.write("garbage.mp4", (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try assertFailsGracefully("garbage.mp4", folder: folder, errorContains: "garbage.mp4")
    }

    func testEmptyFile() throws {
        let folder = ScratchFolder()
        folder.write("empty.mp4", [])
        try assertFailsGracefully("empty.mp4", folder: folder, errorContains: "empty.mp4")
    }

    /// A file of sound only is no longer bad input (issue 61 item 12): it plays over a still
    /// card, and is not a failed story (`VoiceNoteTests` has the rest).
    func testAudioOnlyFilePlaysOverAStillCard() throws {
        let (summary, events, output) = try renderWithBrokenFirstStory(Fixture.path("tone.m4a"), folder: ScratchFolder())
        XCTAssertEqual(events.of(.failed), [])
        XCTAssertEqual(summary.failedStories.map(\.id), [])
        XCTAssertEqual(events.of(.firstFrame, story: "broken").first?.detail, "sound only: shown over a still card")
        let frame = try RGBAImage(contentsOfPNG: output.file("frame-000000.png"))
        XCTAssertEqual(frame[4, 100], SoundCardPicture.card, "the sound card shows, not the error card")
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [])
    }

    /// A 16000×16000 PNG header: refused by size before any picture is allocated.
    func testOversizedImage() throws {
        let folder = ScratchFolder()
        folder.write("huge.png", HugePNG.bytes(width: 16000, height: 16000))
        try assertFailsGracefully("huge.png", folder: folder, errorContains: "16000x16000")
    }

    /// A phone's 108 MP photo is over the pixel limit: FFmpeg's refusal ("see the documentation
    /// if you wish to increase it") named an option the user cannot set; the card says the
    /// picture's size and the tool's limit. Made here just over it: 8200x8200, 67.2 MP.
    func testAJPEGOverThePixelLimitNamesItsSizeAndTheToolsLimit() throws {
        let folder = ScratchFolder()
        try ExternalProgram.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=red:s=8200x8200",
                                                    "-frames:v", "1", folder.file("huge.jpg")])
        try assertFailsGracefully("huge.jpg", folder: folder,
                                  errorContains: "the picture is 8200x8200 (67.2 MP), more than the 67.1 MP this tool decodes")
    }

    /// An animated WebP (FFmpeg 5.1 decodes only still ones, and said "image data not found")
    /// fails saying what the file is, and what to make of it.
    func testAnAnimatedWebPSaysWhatItIs() throws {
        let folder = ScratchFolder()
        try ExternalProgram.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=32x32:d=0.5:r=10",
                                                    "-c:v", "libwebp_anim", "-loop", "0", folder.file("moving.webp")])
        try assertFailsGracefully("moving.webp", folder: folder, errorContains: "an animated WebP, which FFmpeg 5.1 cannot decode")
        // A still WebP is not taken for one.
        try ExternalProgram.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=red:s=32x32",
                                                    "-frames:v", "1", folder.file("still.webp")])
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder.file("still.webp"))))
        XCTAssertFalse(bytes.withUnsafeBytes { WebPAnimation.isAnimated($0) })
    }

    /// A broken item no play reaches is named all the same, by its JSON path, from the load of
    /// its first picture as its poster (the preload window holds its story); it was said nowhere.
    func testABrokenItemThatNoPlayReachesIsNamedByItsPath() throws {
        let folder = ScratchFolder()
        folder.write("broken.mp4", Array("not a video".utf8))
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 0.5,
         "stories": [{"id": "good", "items": [{"uri": "\(Fixture.path("counter.mp4"))"}]},
                     {"id": "later", "items": [{"uri": "\(Fixture.path("counter.mp4"))"}, {"uri": "broken.mp4"}]},
                     {"id": "never", "items": [{"uri": "broken.mp4"}]}]}
        """, folder: folder.path)
        let (summary, _, _) = try render(board)
        let named = summary.notices.filter { $0.contains("not played, and its first picture did not load for its poster") }
        XCTAssertEqual(named.count, 2, "\(summary.notices)")
        XCTAssertTrue(named.first?.hasPrefix("stories[1].items[1]: ") ?? false, "\(named)")
        XCTAssertTrue(named.last?.hasPrefix("stories[2].items[0]: ") ?? false, "\(named)")
        XCTAssertEqual(summary.failedStories.map(\.id), [], "nothing played failed")
        XCTAssertFalse(summary.notices.contains { $0.contains("metadata not loaded") },
                       "the story's probe, of the same file, does not say it again: \(summary.notices)")
    }

    /// A truncated file that opens plays until its data ends, and then ends (no failure).
    func testTruncatedFilePlaysUntilTheDataEnds() throws {
        let folder = ScratchFolder()
        let whole = try Data(contentsOf: URL(fileURLWithPath: Fixture.sample("beach.mp4")))
        folder.write("cut.mp4", Array(whole.prefix(whole.count / 2)))
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10},
         "stories": [{"id": "cut", "items": [{"uri": "cut.mp4"}]}]}
        """, folder: folder.path)
        let (summary, events, _) = try render(board)
        XCTAssertEqual(events.of(.failed), [])
        XCTAssertEqual(events.of(.firstFrame).count, 1)
        let ended = try XCTUnwrap(events.of(.ended).first)
        XCTAssertGreaterThan(ended.t, 0.3)
        XCTAssertLessThan(ended.t, 2.9, "it ends where the data ends, before the 3 s the header promises")
        XCTAssertEqual(summary.failedStories.count, 0)
    }
}
