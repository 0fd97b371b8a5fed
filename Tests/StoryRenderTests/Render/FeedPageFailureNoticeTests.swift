import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

/// A feed page that fails again and again is noticed once in the summary, not once a failure.
final class FeedPageFailureNoticeTests: XCTestCase {
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
