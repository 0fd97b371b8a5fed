import Foundation
import StoryTestSupport
import XCTest

/// Issue 61 item 14: the studio opened on a storyboard that is broken from its first reading
/// (headless Chromium, as `StudioBrowserTests`). There is no last good version to speak of, no
/// frame to show (no broken image in its place), and the Render button is off with the reason
/// until the storyboard is valid; the server refuses a render asked for all the same. Once the
/// file is fixed, the frame shows and Render comes on. Under CI=true a server or browser that
/// does not start fails the test.
final class StudioBrokenStartTests: XCTestCase {
    var folder: ScratchFolder!
    var board: String!
    var studio: StudioProcess!
    var browser: StudioBrowser!

    override func setUpWithError() throws {
        try StudioHarness.requireChromium()
        folder = ScratchFolder()
        board = try StudioHarness.writeDemo(into: folder.path, width: 180, height: 320)
    }

    override func tearDown() {
        browser?.close()
        studio?.stop()
    }

    func text(_ id: String) throws -> String {
        try browser.js("document.getElementById('\(id)').textContent") as? String ?? ""
    }

    func flag(_ expression: String) throws -> Bool { try browser.js(expression) as? Bool ?? false }

    func testABoardBrokenFromTheStartShowsNoFrameAndBlocksRenderUntilFixed() throws {
        let good = try String(contentsOfFile: board, encoding: .utf8)
        try good.replacingOccurrences(of: "\"fps\": 30", with: "\"fps\": \"fast\"").write(toFile: board, atomically: true, encoding: .utf8)
        (studio, browser) = try StudioHarness.open(board: board, output: folder.file("out"))
        XCTAssertNotNil(try browser.wait("document.body.dataset.ready === 'true'", timeout: 30), "the page loads")

        // The errors, with their JSON path, and no "last good version" that does not exist.
        XCTAssertFalse(try flag("document.getElementById('errors').hidden"), "the errors are shown")
        let errors = try text("errors")
        XCTAssertTrue(errors.contains("canvas.fps"), errors)
        XCTAssertFalse(errors.contains("last good version"), errors)
        // No frame and no broken image: the picture is hidden, a sentence says why.
        XCTAssertTrue(try flag("document.getElementById('frame').hidden"), "no picture element shown without a frame")
        XCTAssertEqual(try browser.js("document.getElementById('frame').getAttribute('src')") as? String, nil)
        XCTAssertFalse(try flag("document.getElementById('no-frame').hidden"))
        let why = try text("no-frame")
        XCTAssertTrue(why.contains("not been read without errors"), why)
        // Render is off, with the reason beside it and on the button.
        XCTAssertTrue(try flag("document.getElementById('render').disabled"), "Render is off")
        XCTAssertFalse(try flag("document.getElementById('render-reason').hidden"))
        let reason = try text("render-reason")
        XCTAssertTrue(reason.contains("until the storyboard is valid") && reason.contains("1 error"), reason)
        XCTAssertEqual(try browser.js("document.getElementById('render').title") as? String, reason)
        // Asked for all the same, the server refuses it, and starts nothing.
        let status = try browser.js("fetch(api('/api/render'), { method: 'POST', body: '{}' }).then(r => r.status)", await: true)
        XCTAssertEqual(status as? Int, 422)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("out")), "no render ran")
        XCTAssertEqual(try browser.consoleErrors().filter { !$0.contains("422") }, [], "console errors")

        // Fixed on disk: the frame shows, the errors go, Render comes on.
        try good.write(toFile: board, atomically: true, encoding: .utf8)
        XCTAssertNotNil(try browser.wait("document.body.dataset.shown === '0' && !document.getElementById('frame').hidden", timeout: 30),
                        "the first frame shows once the storyboard is valid")
        XCTAssertTrue(try flag("document.getElementById('errors').hidden"))
        XCTAssertTrue(try flag("document.getElementById('no-frame').hidden"))
        XCTAssertFalse(try flag("document.getElementById('render').disabled"), "Render is on")
        XCTAssertTrue(try flag("document.getElementById('render-reason').hidden"))

        // Broken again: now there is a last good version, and it stays; Render goes off again,
        // since it renders the file as saved.
        try good.replacingOccurrences(of: "\"fps\": 30", with: "\"fps\": \"fast\"").write(toFile: board, atomically: true, encoding: .utf8)
        XCTAssertNotNil(try browser.wait("!document.getElementById('errors').hidden", timeout: 10))
        let errorsNow = try text("errors")
        XCTAssertTrue(errorsNow.contains("showing the last good version"), errorsNow)
        XCTAssertFalse(try flag("document.getElementById('frame').hidden"), "the last good frame stays")
        XCTAssertTrue(try flag("document.getElementById('render').disabled"))
    }
}
