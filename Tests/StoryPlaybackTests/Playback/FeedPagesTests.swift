import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
import StoryPlayerTestSupport
import XCTest

/// Feed pages over HTTP come through FFmpeg's own protocols (`FeedPageStream`), with the storyboard's
/// open timeout and the same reasons in notices as a story source gets.
final class FeedPagesTests: XCTestCase {
    /// A next page whose server accepts and never answers: the render goes on with the stories
    /// it has, and says how long it waited, each time it tried.
    func testAPageThatNeverComesTimesOutAndTheRenderGoesOn() throws {
        try LiveServers.require("python3")
        let servers = ServerSet()
        defer { servers.stopAll() }
        let stalling = try servers.stallingServer()
        let folder = servers.folder.file("feed")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let page = #"{"stories": [{"id": "a", "items": [{"uri": "\#(Fixture.path("counter.mp4"))", "duration": 0.5}]}], "#
            + #""next": "http://127.0.0.1:\#(stalling)/page2.json"}"#
        FileManager.default.createFile(atPath: folder + "/page1.json", contents: Data(page.utf8))
        let base = try servers.httpServer(root: folder)
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 1.0, "timeouts": {"open": 1},
         "feed": {"url": "\(base)/page1.json"},
         "script": [{"at": 0.5, "action": "swipe", "direction": "next"}]}
        """, folder: servers.folder.path)
        let (summary, events, _) = try render(board)
        XCTAssertEqual(events.of(.play).map(\.story), ["a"])
        let timeouts = summary.notices.filter { $0.contains("page2.json") && $0.contains("no answer within 1 s") }
        XCTAssertFalse(timeouts.isEmpty, "\(summary.notices)")
        XCTAssertEqual(summary.feedPages, 1)
    }

    /// A server that accepts and never answers: the page gives up when the storyboard's open
    /// timeout interrupts FFmpeg, not at FFmpeg's own socket timeout a second later.
    func testTheOpenTimeoutInterruptsTheFetch() throws {
        try LiveServers.require("python3")
        let servers = ServerSet()
        defer { servers.stopAll() }
        let stalling = try servers.stallingServer()
        XCTAssertThrowsError(try FeedPageStream.download("http://127.0.0.1:\(stalling)/page.json", timeout: 1, limit: 1 << 20)) { error in
            XCTAssertEqual((error as? MediaError)?.code, .timeout, "\(error)")
            XCTAssertEqual((error as? MediaError)?.message, "no answer within 1 s", "\(error)")
        }
    }

    /// A page that is not there: FFmpeg's reason, with the status code, in the notice.
    func testAMissingPageNamesTheStatus() throws {
        try LiveServers.require("python3")
        let servers = ServerSet()
        defer { servers.stopAll() }
        let folder = servers.folder.file("feed")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let base = try servers.httpServer(root: folder)
        let feed = FeedPages(feed: Feed(url: "\(base)/none.json"), folder: folder, timeout: 2)
        XCTAssertThrowsError(try feed.fetchFirst()) { error in
            XCTAssertTrue("\(error)".contains("404 Not Found"), "\(error)")
        }
    }

    /// A feed page names the stories to play, so an HTTPS page must come from the server it
    /// names: a self-signed certificate is refused, as URLSession refused it.
    func testAnHTTPSPageWithAnUntrustedCertificateIsRefused() throws {
        let servers = ServerSet()
        defer { servers.stopAll() }
        let folder = servers.folder.file("pages")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/page.json", contents: Data(#"{"stories": [], "next": null}"#.utf8))
        let base = try servers.httpsServer(root: folder)
        XCTAssertThrowsError(try FeedPageStream.download("\(base)/page.json", timeout: 5, limit: 1 << 20)) { error in
            XCTAssertEqual((error as? MediaError)?.code, .open, "\(error)")
        }
    }
}
