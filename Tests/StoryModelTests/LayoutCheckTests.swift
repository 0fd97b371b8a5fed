import Compositor
import Foundation
import StoryMedia
@testable import StoryModel
import StoryPlayerTestSupport
import XCTest

/// `check-layout`: text inside a platform's UI zones.
final class LayoutCheckTests: XCTestCase {
    /// Kept for the test's length: a scratch folder is removed with its last reference, and the
    /// captions file must still be there when the layout is checked.
    let folder = ScratchFolder()

    func board(captions: Bool) throws -> Storyboard {
        _ = folder.write("talk.vtt", Array("WEBVTT\n\n00:00.500 --> 00:01.500\nHello there\n".utf8))
        let item = captions ? #"{"uri": "photo.png", "captions": "talk.vtt"}"# : #"{"uri": "photo.png"}"#
        return try Storyboard(json: Data("""
        {"canvas": {"width": 360, "height": 640}, "stories": [{"id": "a", "items": [\(item)]}]}
        """.utf8), folder: folder.path)
    }

    func testACaptionInTheBottom35PercentWarnsForReels() throws {
        let warnings = try board(captions: true).layoutWarnings(for: .reels)
        XCTAssertEqual(warnings.map(\.path), ["stories[0].items[0].captions"])
        XCTAssertTrue(warnings[0].message.hasSuffix("falls in reels' bottom 35 %"), warnings[0].message)
        // The default box's lower edge is 20 % above the bottom: clear of the stories zones.
        XCTAssertEqual(try board(captions: true).layoutWarnings(for: .stories), [])
    }

    /// A captions file that is not there draws nothing, so it is in no zone: the render and
    /// `check-layout` warn that it is missing, and no caption box is made up for it.
    func testAMissingCaptionsFileIsInNoZone() throws {
        let board = try Storyboard(json: Data("""
        {"canvas": {"width": 360, "height": 640}, "stories": [{"id": "a", "items": [{"uri": "photo.png", "captions": "gone.vtt"}]}]}
        """.utf8), folder: folder.path)
        XCTAssertTrue(board.missingLocalFiles.contains { $0.file.hasSuffix("gone.vtt") })
        for platform in PlatformSafeZones.allCases {
            XCTAssertEqual(board.layoutWarnings(for: platform), [], "\(platform)")
        }
    }

    func testABoardWithoutCaptionsIsQuiet() throws {
        for platform in PlatformSafeZones.allCases {
            XCTAssertEqual(try board(captions: false).layoutWarnings(for: platform), [], "\(platform)")
        }
    }

    func testCaptionsPlacedForThePlatformAreQuiet() throws {
        for platform in PlatformSafeZones.allCases {
            XCTAssertEqual(try board(captions: true).layoutWarnings(for: platform, captionsPlacedFor: platform), [], "\(platform)")
        }
    }

    func testTheZonesAreTheIssuesFigures() {
        let reels = PlatformSafeZones.reels.margins
        XCTAssertEqual([reels.top, reels.bottom, reels.left, reels.right], [0.14, 0.35, 0.06, 0.06])
        XCTAssertEqual(PlatformSafeZones.tiktok.margins.bottom, 0.20)
        XCTAssertTrue(PlatformSafeZones.tiktok.zones.contains { $0.name == "right rail" })
    }
    /// A cue of one long line is measured as libass wraps it (issue 61: it was one line high).
    func testAWrappedCueIsAsTallAsItsLines() throws {
        let words = Array(repeating: "the quick brown fox jumps over a lazy dog", count: 4).joined(separator: " ")
        _ = folder.write("long.vtt", Array("WEBVTT\n\n00:00.500 --> 00:01.500\n\(words)\n".utf8))
        let board = try Storyboard(json: Data("""
        {"canvas": {"width": 360, "height": 640}, "stories": [{"id": "a", "items": [{"uri": "photo.png", "captions": "long.vtt"}]}]}
        """.utf8), folder: folder.path)
        let layout = CaptionLayout(width: 360, height: 640)
        let track = try XCTUnwrap(board.loadCaptions().tracks.values.first)
        XCTAssertEqual(track.mostLines, 1)
        let box = try XCTUnwrap(CaptionRenderer.drawnBox(of: track, layout: layout))
        let lines = (box.y.upperBound - box.y.lowerBound) * 640 / layout.lineHeight
        XCTAssertGreaterThan(lines, 5, "\(box)")
        XCTAssertEqual(box.y.upperBound, 0.80, accuracy: 0.005, "on the default bottom line: \(box)")
        // The box named is the measured one.
        let warning = try XCTUnwrap(board.layoutWarnings(for: .reels).first)
        XCTAssertTrue(warning.message.contains("y \(Int((box.y.lowerBound * 100).rounded()))–80 %"), warning.message)
    }
}
