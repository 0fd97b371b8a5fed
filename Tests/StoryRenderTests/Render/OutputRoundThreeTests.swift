import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

/// Issue 28, round three, in the library: the error card's cause, the feed's repeated notice.
final class OutputRoundThreeLibraryTests: XCTestCase {
    // MARK: - 20. The error card's cause

    /// The card of a story whose server refuses the connection says why ("Connection refused"),
    /// not only "cannot open …": the frame's writing is the card with the whole reason.
    func testTheErrorCardSaysTheCause() throws {
        let url = "http://127.0.0.1:\(LiveServers.freePort())/a.mp4"
        let board = try Storyboard.parse("""
        {"canvas": {"width": 360, "height": 640, "fps": 5}, "duration": 0.4,
         "stories": [{"id": "refused", "items": [{"uri": "\(url)"}]}]}
        """)
        let (summary, events, folder) = try render(board) { $0.overlay = false }
        let failed = try XCTUnwrap(events.of(.failed).first?.error, "\(summary.notices)")
        XCTAssertTrue(failed.contains("Connection refused"), failed)
        let frame = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(folder.path, 1))
        let message = try XCTUnwrap(failed.components(separatedBy: ": Connection refused").first)
        let whole = ErrorCardPicture.render(width: 360, height: 640, backdrop: nil, title: "refused", reason: failed)
        let bare = ErrorCardPicture.render(width: 360, height: 640, backdrop: nil, title: "refused", reason: message)
        func differing(_ card: RGBAImage) -> Int {
            var count = 0
            for y in 250..<640 { for x in 0..<360 where frame[x, y].distance(to: card[x, y]) > 40 { count += 1 } }
            return count
        }
        XCTAssertGreaterThan(differing(bare), 100, "the frame is not the card without the cause")
        XCTAssertLessThan(differing(whole), differing(bare) / 10, "the frame shows the card with the cause")
    }

    // MARK: - 22. The feed's repeated notice

    /// A next page that is not there, tried at each of three moves: one notice, which says how
    /// many times it failed, not the same sentence three times.
    func testAFeedPageThatFailsAgainIsNoticedOnce() throws {
        try LiveServers.require("python3")
        let servers = ServerSet()
        defer { servers.stopAll() }
        let folder = servers.folder.file("feed")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let base = try servers.httpServer(root: folder)
        let clip = Fixture.path("counter.mp4")
        let stories = ["a", "b", "c"].map { #"{"id": "\#($0)", "items": [{"uri": "\#(clip)", "duration": 0.5}]}"# }
        let page = #"{"stories": [\#(stories.joined(separator: ", "))], "next": "\#(base)/page2.json"}"#
        FileManager.default.createFile(atPath: folder + "/page1.json", contents: Data(page.utf8))
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 1.6,
         "feed": {"url": "\(base)/page1.json"},
         "script": [{"at": 0.4, "action": "swipe", "direction": "next"}, {"at": 0.9, "action": "swipe", "direction": "next"}]}
        """, folder: servers.folder.path)
        let (summary, _, _) = try render(board)
        let missing = summary.notices.filter { $0.contains("page2.json") }
        XCTAssertEqual(missing.count, 1, "\(summary.notices)")
        XCTAssertTrue(missing.first?.contains("404") == true, "\(missing)")
        XCTAssertTrue(missing.first?.contains("failed 3 times") == true, "\(missing)")
    }
}
