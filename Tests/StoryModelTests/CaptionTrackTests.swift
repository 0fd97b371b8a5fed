import Foundation
@testable import StoryModel
import StoryPlayerTestSupport
import XCTest

/// WebVTT and SRT read into cues: times, text, the styles kept and the tags dropped, and the
/// storyboard's `captions` key with its JSON paths.
final class CaptionTrackTests: XCTestCase {
    func testWebVTTCuesKeepTheirTimesAndBoldAndItalic() throws {
        let track = try CaptionTrack(text: """
        WEBVTT - a header

        NOTE skipped

        intro
        00:01.000 --> 00:02.500 line:80%
        Hello <b>bold</b> and <i>italic</i>
        <v Ann>second &amp; line</v>

        01:00:00.250 --> 01:00:01.000
        <c.yellow>plain</c>
        """)
        XCTAssertEqual(track.cues.count, 2)
        XCTAssertEqual(track.cues[0].start, 1.0)
        XCTAssertEqual(track.cues[0].end, 2.5)
        XCTAssertEqual(track.cues[0].text, "Hello bold and italic\nsecond & line")
        XCTAssertEqual(track.cues[0].runs.filter(\.bold).map(\.text), ["bold"])
        XCTAssertEqual(track.cues[0].runs.filter(\.italic).map(\.text), ["italic"])
        XCTAssertEqual(track.cues[1].start, 3600.25, accuracy: 1e-9)
        XCTAssertEqual(track.cues[1].runs, [CaptionRun(text: "plain")])
        XCTAssertEqual(track.mostLines, 2)
    }

    func testSRTWithCommasAndWindowsLineEnds() throws {
        let track = try CaptionTrack(text: "1\r\n00:00:01,000 --> 00:00:02,000\r\n<i>One</i>\r\n\r\n2\r\n00:00:03,500 --> 00:00:04,000\r\nTwo\r\n")
        XCTAssertEqual(track.cues.map(\.start), [1, 3.5])
        XCTAssertEqual(track.cues.map(\.text), ["One", "Two"])
        XCTAssertTrue(track.cues[0].runs[0].italic)
    }

    func testBadTimesAndEmptyFilesNameTheLine() {
        XCTAssertThrowsError(try CaptionTrack(text: "WEBVTT\n\n00:01.000 --> 00:0x.000\nHi\n")) { error in
            XCTAssertEqual("\(error)", "line 3: \"00:0x.000\" is not a time (hh:mm:ss.mmm)")
        }
        XCTAssertThrowsError(try CaptionTrack(text: "1\n00:00:02,000 --> 00:00:01,000\nBackwards\n")) { error in
            XCTAssertEqual("\(error)", "line 2: the cue ends (00:00:01,000) before it starts (00:00:02,000)")
        }
        XCTAssertThrowsError(try CaptionTrack(text: "just words\n")) { error in
            XCTAssertEqual("\(error)", "line 1: expected a cue: a line \"start --> end\" (e.g. 00:00:01.000 --> 00:00:02.500)")
        }
        XCTAssertThrowsError(try CaptionTrack(text: "WEBVTT\n")) { error in XCTAssertEqual("\(error)", "no cues") }
        // Numbers that would overflow the sum are not times, not a crash.
        XCTAssertNil(CaptionTrack.seconds("99999999999999999:00:00.000"))
        XCTAssertNil(CaptionTrack.seconds("-1:00.000"))
        XCTAssertEqual(CaptionTrack.seconds("1:02:03.5"), 3723.5)
    }

    /// Mangled files (bytes changed, lines cut, cues shuffled) give cues or a ParseError, never a
    /// crash or a cue that ends before it starts.
    func testMangledFilesNeverCrash() {
        let valid = Array("WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.500 align:start\n<b>Hi</b> &amp; <i>there\n\n02:03.000 --> 02:04.000\nBye\n".utf8)
        let alphabet = Array("0123456789:.,-> \n<>/&;biuWEBVTT".utf8)
        var random = SplitMix64(seed: 32)
        for _ in 0..<3000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[at] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
                }
                if bytes.isEmpty { bytes = [0x0A] }
            }
            if let track = try? CaptionTrack(text: String(decoding: bytes, as: UTF8.self)) {
                XCTAssertTrue(track.cues.allSatisfy { $0.end > $0.start && $0.start >= 0 })
            }
        }
    }

    func testTheStoryboardKeyResolvesAgainstItsFolderAndNamesMissingFiles() throws {
        let folder = ScratchFolder()
        _ = folder.write("item.vtt", Array("WEBVTT\n\n00:00.000 --> 00:01.000\nHi\n".utf8))
        let board = try Storyboard(json: Data("""
        {"stories": [{"id": "a", "captions": "gone.srt",
                      "items": [{"uri": "photo.png", "captions": "item.vtt"}, {"uri": "photo.png"}]}]}
        """.utf8), folder: folder.path)
        XCTAssertEqual(board.stories[0].items[0].captions, folder.file("item.vtt"))
        XCTAssertEqual(board.captionSources.map(\.path), ["stories[0].captions", "stories[0].items[0].captions"])
        XCTAssertTrue(board.missingLocalFiles.contains(Storyboard.MissingFile(path: "stories[0].captions", file: folder.file("gone.srt"))))
        let loaded = board.loadCaptions()
        XCTAssertEqual(loaded.tracks.count, 1, "the missing file is named by missingLocalFiles, not read")
        XCTAssertEqual(loaded.problems, [])
    }

    func testAnUnreadableCaptionsFileIsAStoryboardErrorAtItsPath() throws {
        let folder = ScratchFolder()
        _ = folder.write("bad.vtt", Array("WEBVTT\n\nnonsense --> 00:01.000\nHi\n".utf8))
        let board = try Storyboard(json: Data(#"{"stories": [{"items": [{"uri": "p.png", "captions": "bad.vtt"}]}]}"#.utf8),
                                   folder: folder.path)
        XCTAssertThrowsError(try board.checkCaptions()) { error in
            XCTAssertEqual((error as? StoryboardError)?.path, "stories[0].items[0].captions")
        }
        XCTAssertThrowsError(try Storyboard(json: Data(#"{"stories": [{"items": [{"uri": "p.png", "captions": 3}]}]}"#.utf8),
                                            folder: folder.path)) { error in
            XCTAssertEqual((error as? StoryboardError)?.path, "stories[0].items[0].captions")
        }
    }
}
