import Compositor
import Foundation
@testable import StoryModel
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
}
