import Compositor
import Foundation
import StoryPlayer
import StoryTestSupport
import XCTest

/// The studio's page in headless Chromium (Tests/Support/Python/studio_browser.py, the DevTools
/// protocol, real keys and clicks): items 1 to 4 of issue 31 (item 7: StudioLiveTests). Under CI=true a server or
/// browser that does not start fails the test.
final class StudioBrowserTests: XCTestCase {
    var folder: ScratchFolder!
    var board: String!
    var studio: StudioProcess!
    var browser: StudioBrowser!

    override func setUpWithError() throws {
        try StudioHarness.requireChromium()
        folder = ScratchFolder()
        board = try StudioHarness.writeDemo(into: folder.path, width: 360, height: 640, copies: true)
        (studio, browser) = try StudioHarness.open(board: board, output: folder.file("out"))
    }

    override func tearDown() {
        browser?.close()
        studio?.stop()
    }

    /// Sets the scrubber as a drag does (input events, then the release's change).
    func scrub(to frame: Int) throws {
        _ = try browser.js("""
            (() => { const s = document.getElementById('scrub'); s.value = \(frame);
              s.dispatchEvent(new Event('input')); s.dispatchEvent(new Event('change')); return true; })()
            """)
    }

    func waitForShown(_ frame: Int, timeout: Double = 20) throws {
        let seconds = try browser.wait("document.body.dataset.shown === '\(frame)' && document.body.dataset.shownHalf === 'false'"
                                       + " && !document.getElementById('stage').dataset.busy.includes('true')", timeout: timeout)
        XCTAssertNotNil(seconds, "frame \(frame) was never shown")
    }

    func number(_ expression: String) throws -> Double { try browser.js(expression) as? Double ?? Double(try browser.js(expression) as? Int ?? -1) }

    // MARK: - The check's own hygiene

    /// Chromium's profile (tens of megabytes) lives in a temporary folder while the page is open
    /// and is gone once the browser is closed, so a test run leaves nothing behind in /tmp.
    func testClosingTheBrowserLeavesNoProfileBehind() throws {
        // A short path: Chromium puts a Unix socket in its profile, and sun_path holds 108 bytes.
        let temporary = "/tmp/studio-tmp-\(getpid())"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        let second = try StudioBrowser(url: studio.url, temporaryDirectory: temporary)
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty,
                       "the profile is made in TMPDIR")
        second.close()
        XCTAssertFalse(second.process.isRunning)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temporary), [])
    }

    // MARK: - Item 1 (and 3): the player, keys, lanes, marks, command

    func testPageLoadsScrubsAndShowsTheRenderedFrame() throws {
        try waitForShown(0)
        XCTAssertEqual(try browser.consoleErrors(), [], "console errors on load")
        // Keys: → three times, ← once, Shift+→ one second (30 frames).
        for _ in 0..<3 { try browser.key("ArrowRight", code: "ArrowRight", keyCode: 39) }
        XCTAssertEqual(try browser.js("document.body.dataset.frame") as? String, "3")
        try browser.key("ArrowLeft", code: "ArrowLeft", keyCode: 37)
        XCTAssertEqual(try browser.js("document.body.dataset.frame") as? String, "2")
        try browser.key("ArrowRight", code: "ArrowRight", keyCode: 39, shift: true)
        XCTAssertEqual(try browser.js("document.body.dataset.frame") as? String, "32")
        try waitForShown(32)
        // Space plays, Space pauses: the frame moved on.
        try browser.key(" ", code: "Space", keyCode: 32, text: " ")
        Thread.sleep(forTimeInterval: 1.0)
        try browser.key(" ", code: "Space", keyCode: 32, text: " ")
        let played = Int(try browser.js("document.body.dataset.frame") as? String ?? "") ?? -1
        XCTAssertGreaterThan(played, 34, "play moves on")
        XCTAssertEqual(try browser.js("document.getElementById('play').textContent") as? String, "▶ Play")

        // Scrubbing to a frame mid-turn shows the very pixels `render --frames N` writes.
        let n = 165
        let playheadBefore = try number("Number(document.getElementById('playhead').getAttribute('x1'))")
        try scrub(to: n)
        try waitForShown(n)
        let out = folder.file("frame-\(n)")
        let result = try StudioHarness.run(["render", board, "--frames", "\(n)", "--output", out, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let rendered = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(out, n))
        let shown = try RGBAImage(pngData: [UInt8](try browser.shownPNG()))
        XCTAssertEqual(shown.width, 360)
        XCTAssertTrue(FrameStepperTests.samePixels(shown, rendered), "the page's frame \(n) is render --frames \(n)'s")

        // Beside it: the lanes with their cursor at the frame, the script's marks, the command.
        XCTAssertGreaterThan(try number("document.querySelectorAll('#lanes .bar').length"), 3)
        XCTAssertGreaterThan(try number("Number(document.getElementById('playhead').getAttribute('x1'))"), playheadBefore)
        XCTAssertEqual(try number("document.querySelectorAll('#marks .mark').length"), 12, "the demo's twelve gestures")
        let command = try browser.js("document.getElementById('command').textContent") as? String ?? ""
        XCTAssertTrue(command.contains("render-stories render \(board!) --frames \(n) "), command)
        // A click on a script mark goes to its frame.
        try browser.command(["op": "click", "selector": "#marks .mark[data-action=swipe\\ next]"])
        XCTAssertEqual(try browser.js("document.body.dataset.frame") as? String, "\(Int((7.8 * 30).rounded()))")
        XCTAssertEqual(try browser.consoleErrors(), [])

        // The README's picture, from this run: written over docs/studio.png only when asked
        // (LIVE_STORIES_DOC_PICTURES=1), so a test run leaves the working tree as it was.
        try scrub(to: n)
        try waitForShown(n)
        let shot = folder.file("studio.png")
        try browser.command(["op": "screenshot", "path": shot])
        XCTAssertGreaterThan(try RGBAImage(contentsOfPNG: shot).width, 0)
        if ProcessInfo.processInfo.environment["LIVE_STORIES_DOC_PICTURES"] == "1" {
            let docs = StudioHarness.packageRoot.appendingPathComponent("docs/studio.png").path
            try? FileManager.default.removeItem(atPath: docs)
            try FileManager.default.copyItem(atPath: shot, toPath: docs)
        }
    }

    /// Issue 32 item 4: the safe-zones select lays the platform's zones over the frame, from the
    /// same table as `still --safe-zones`, and none is drawn into the frame itself.
    func testTheSafeZonesSelectLaysTheZonesOverTheFrame() throws {
        try waitForShown(0)
        let before = try browser.shownPNG()
        _ = try browser.js("""
            (() => { const s = document.getElementById('safe-zones'); s.value = 'reels';
              s.dispatchEvent(new Event('change')); return true; })()
            """)
        XCTAssertEqual(try number("document.querySelectorAll('#zones div').length"), Double(PlatformSafeZones.reels.zones.count))
        XCTAssertEqual(try browser.js("document.querySelector('#zones div').title") as? String, "reels: top 14 %")
        XCTAssertEqual(try number("document.getElementById('zones').offsetWidth"), try number("document.getElementById('frame').offsetWidth"))
        XCTAssertEqual(try browser.shownPNG(), before, "the frame itself has no zones")
        _ = try browser.js("""
            (() => { const s = document.getElementById('safe-zones'); s.value = '';
              s.dispatchEvent(new Event('change')); return true; })()
            """)
        XCTAssertEqual(try number("document.querySelectorAll('#zones div').length"), 0)
        XCTAssertEqual(try browser.consoleErrors(), [])
    }

    /// A drag asks for half-size frames; its release for the full one.
    func testDraggingShowsHalfSizeFrames() throws {
        try waitForShown(0)
        _ = try browser.js("(() => { const s = document.getElementById('scrub'); s.value = 90; s.dispatchEvent(new Event('input')); return true; })()")
        XCTAssertNotNil(try browser.wait("document.body.dataset.shown === '90' && document.body.dataset.shownHalf === 'true'", timeout: 20))
        let half = try RGBAImage(pngData: [UInt8](try browser.shownPNG()))
        XCTAssertEqual(half.width, 180)
        try scrub(to: 90)
        try waitForShown(90)
        XCTAssertEqual(try RGBAImage(pngData: [UInt8](try browser.shownPNG())).width, 360)
    }

    // MARK: - Item 2: hot reload

    func testAnEditOnDiskChangesTheFrameWithinOneSecond() throws {
        try scrub(to: 30)
        try waitForShown(30)
        let before = try browser.shownPNG()
        let version = try browser.js("document.body.dataset.shownVersion") as? String
        // The first story shows the forest instead of the beach.
        let text = try String(contentsOfFile: board, encoding: .utf8)
        try text.replacingOccurrences(of: "\"beach.mp4\"", with: "\"forest.mp4\"").write(toFile: board, atomically: true, encoding: .utf8)
        let seconds = try browser.wait("document.body.dataset.shownVersion !== '\(version ?? "")' && document.body.dataset.shown === '30'", timeout: 10)
        XCTAssertNotNil(seconds, "the saved edit never reached the page")
        XCTAssertLessThan(seconds ?? 99, 1.0, "from saving to the new frame")
        XCTAssertNotEqual(try browser.shownPNG(), before, "the frame changed")

        // A local media file the storyboard names: replaced on disk, the frame follows.
        let shownAfterEdit = try browser.shownPNG()
        let versionAfterEdit = try browser.js("document.body.dataset.shownVersion") as? String
        let forest = folder.file("forest.mp4")
        try FileManager.default.removeItem(atPath: forest)
        try FileManager.default.copyItem(atPath: StudioHarness.packageRoot.appendingPathComponent("samples/night.mp4").path, toPath: forest)
        XCTAssertNotNil(try browser.wait("document.body.dataset.shownVersion !== '\(versionAfterEdit ?? "")'", timeout: 10),
                        "saving a media file re-renders")
        XCTAssertNotEqual(try browser.shownPNG(), shownAfterEdit)
        XCTAssertEqual(try browser.consoleErrors(), [])
    }

    func testABrokenEditShowsItsErrorAndKeepsTheLastFrame() throws {
        try scrub(to: 30)
        try waitForShown(30)
        let before = try browser.shownPNG()
        let good = try String(contentsOfFile: board, encoding: .utf8)
        try good.replacingOccurrences(of: "\"fps\": 30", with: "\"fps\": \"fast\"").write(toFile: board, atomically: true, encoding: .utf8)
        XCTAssertNotNil(try browser.wait("!document.getElementById('errors').hidden", timeout: 10), "the error is shown")
        let errors = try browser.js("document.getElementById('errors').textContent") as? String ?? ""
        XCTAssertTrue(errors.contains("canvas.fps"), "with its JSON path: \(errors)")
        XCTAssertEqual(try browser.shownPNG(), before, "the last good frame stays")
        // Moving on still works on the last good version.
        try browser.key("ArrowRight", code: "ArrowRight", keyCode: 39)
        try waitForShown(31)
        // Fixed again: the error goes.
        try good.write(toFile: board, atomically: true, encoding: .utf8)
        XCTAssertNotNil(try browser.wait("document.getElementById('errors').hidden", timeout: 10), "the error goes when fixed")
    }

    // MARK: - Item 4: the Render button

    func testRenderThenCancelLeavesNoTemporaryFiles() throws {
        try waitForShown(0)
        try browser.command(["op": "click", "selector": "#render"])
        XCTAssertNotNil(try browser.wait("document.body.dataset.render === 'running' && /frame [1-9]/.test(document.getElementById('progress').textContent)", timeout: 30),
                        "progress shows")
        XCTAssertTrue((try browser.js("document.getElementById('progress').textContent") as? String ?? "").contains("fps"))
        try browser.command(["op": "click", "selector": "#cancel"])
        XCTAssertNotNil(try browser.wait("document.body.dataset.render === 'cancelled'", timeout: 30), "cancel stops it")
        let out = folder.file("out")
        let left = FileManager.default.enumerator(atPath: out)?.compactMap { $0 as? String } ?? []
        XCTAssertFalse(left.isEmpty, "the render had started writing")
        XCTAssertEqual(left.filter { $0.hasSuffix(".tmp") || ($0 as NSString).lastPathComponent.hasPrefix(".") }, [],
                       "no temporary file is left")
    }

    func testRenderLinksTheReportAndTheMP4() throws {
        try waitForShown(0)
        // Half size, no overlay: the options chosen in the page reach the render.
        _ = try browser.js("document.getElementById('opt-size').value = 'half'; document.getElementById('opt-overlay').checked = false;"
                           + " document.getElementById('opt-size').dispatchEvent(new Event('change')); true")
        let command = try browser.js("document.getElementById('command').textContent") as? String ?? ""
        XCTAssertTrue(command.contains("--size 180x320") && command.contains("--no-overlay"), command)
        try browser.command(["op": "click", "selector": "#render"])
        XCTAssertNotNil(try browser.wait("document.body.dataset.render === 'done'", timeout: 240), "the render finishes")
        let report = try browser.js("document.getElementById('link-report').href") as? String ?? ""
        let mp4 = try browser.js("document.getElementById('link-mp4').href") as? String ?? ""
        let http = RawHTTP(address: "127.0.0.1", port: studio.port)
        for link in [report, mp4] {
            let url = try XCTUnwrap(URLComponents(string: link))
            XCTAssertEqual(try http.get(url.path + "?" + (url.query ?? "")).status, 200, link)
        }
        let frame = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(folder.file("out"), 0))
        XCTAssertEqual(frame.width, 180)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.file("out/demo.mp4")))
    }
}
