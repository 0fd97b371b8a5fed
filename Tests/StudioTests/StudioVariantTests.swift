import Compositor
import Foundation
import StoryPlayer
import StoryTestSupport
import XCTest

/// Issue 55 item 4: a storyboard's parameters as a form in the studio's page (typed inputs, the
/// enum as a select, a file picker of the storyboard's folder), the preview following the form,
/// a row selector for `--data`, and the Render button rendering the variant shown: the same
/// frames, byte for byte, as `render --set` with those values. In headless Chromium; under
/// CI=true a browser that does not start fails the test.
final class StudioVariantTests: XCTestCase {
    var folder: ScratchFolder!
    var studio: StudioProcess!
    var browser: StudioBrowser!

    override func setUpWithError() throws {
        try StudioHarness.requireChromium()
        folder = ScratchFolder()
        try FileManager.default.createDirectory(atPath: folder.file("photos"), withIntermediateDirectories: true)
        for name in ["sunset.jpg", "home.jpg"] {
            try FileManager.default.copyItem(atPath: StudioHarness.packageRoot.appendingPathComponent("samples/" + name).path,
                                             toPath: folder.file("photos/" + name))
        }
        try """
            {"parameters": {"photo": {"type": "file", "default": "photos/sunset.jpg"},
                            "length": {"type": "number", "default": 1, "min": 0.5, "max": 3},
                            "lang": {"type": "string", "enum": ["en", "fr"], "default": "en"},
                            "accent": {"type": "colour", "default": "#112233"},
                            "still": {"type": "bool", "default": true}},
             "canvas": {"width": 90, "height": 160, "fps": 10, "background": "{{accent}}"},
             "stories": [{"id": "product-{{lang}}", "items": [{"uri": "{{photo}}", "duration": "{{length}}"}]}]}
            """.write(toFile: folder.file("board.json"), atomically: true, encoding: .utf8)
        try "sku,photo,lang,note\nA1,photos/sunset.jpg,en,first\nB2,photos/home.jpg,fr,second\n"
            .write(toFile: folder.file("rows.csv"), atomically: true, encoding: .utf8)
        (studio, browser) = try StudioHarness.open(board: folder.file("board.json"), output: folder.file("out"),
                                                   extra: ["--data", folder.file("rows.csv"), "--name-from", "sku"])
    }

    override func tearDown() {
        browser?.close()
        studio?.stop()
    }

    private func text(_ expression: String) throws -> String { try browser.js(expression) as? String ?? "" }

    /// Waits for the page to show frame 0 of a version newer than `version`.
    private func waitForVersion(after version: String) throws {
        XCTAssertNotNil(try browser.wait("document.body.dataset.version !== '\(version)' && document.body.dataset.shownVersion === document.body.dataset.version"
                                         + " && document.body.dataset.shown === '0' && document.getElementById('stage').dataset.busy === 'false'", timeout: 30),
                        "the preview follows the variant")
    }

    /// What `render --set` draws at frame 0 with `values`.
    private func rendered(_ values: [String: String], into name: String) throws -> RGBAImage {
        let sets = values.keys.sorted().flatMap { ["--set", "\($0)=\(values[$0]!)"] }
        let result = try StudioHarness.run(["render", folder.file("board.json"), "--frames", "0", "--output", folder.file(name), "--quiet"] + sets)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try RGBAImage(contentsOfPNG: StoryRenderer.framePath(folder.file(name), 0))
    }

    func testTheFormAndTheRowsChooseTheVariantThePreviewAndTheRenderShow() throws {
        XCTAssertNotNil(try browser.wait("document.body.dataset.ready === 'true' && document.body.dataset.shown === '0'", timeout: 30))
        XCTAssertEqual(try browser.consoleErrors(), [])

        // The form: one input a parameter, typed by its declaration.
        XCTAssertFalse(try browser.js("document.getElementById('variant-panel').hidden") as? Bool ?? true)
        XCTAssertEqual(try text("document.getElementById('param-lang').tagName"), "SELECT", "an enum is a select")
        XCTAssertEqual(try text("[...document.getElementById('param-lang').options].map(o => o.value).join(',')"), "en,fr")
        XCTAssertEqual(try text("document.getElementById('param-length').type"), "number")
        XCTAssertEqual(try text("document.getElementById('param-length').max"), "3")
        XCTAssertEqual(try text("document.getElementById('param-still').type"), "checkbox")
        XCTAssertEqual(try text("document.querySelector('#parameter-form .colour input[type=color]').value"), "#112233")
        // A file parameter picks among the storyboard folder's files (not the render's output).
        let files = try text("[...document.getElementById('param-photo').options].map(o => o.value).join(',')")
        XCTAssertEqual(files, "board.json,photos/home.jpg,photos/sunset.jpg,rows.csv")

        // Started with --data, the page shows row 1; the selector names the rows by --name-from.
        XCTAssertEqual(try text("document.body.dataset.row"), "1")
        XCTAssertEqual(try text("[...document.getElementById('row-select').options].map(o => o.text).join('|')"), "— the form —|1: A1|2: B2")

        // Row 2: the form takes its values, and the preview is render --set's frame of them.
        var version = try text("document.body.dataset.version")
        _ = try browser.js("(() => { const s = document.getElementById('row-select'); s.value = '2'; s.dispatchEvent(new Event('change')); return true; })()")
        XCTAssertNotNil(try browser.wait("document.body.dataset.row === '2'", timeout: 10))
        try waitForVersion(after: version)
        XCTAssertEqual(try text("document.getElementById('param-photo').value"), "photos/home.jpg")
        XCTAssertEqual(try text("document.getElementById('param-lang').value"), "fr")
        let rowTwo = try rendered(["photo": "photos/home.jpg", "lang": "fr"], into: "row-2")
        XCTAssertTrue(FrameStepperTests.samePixels(try RGBAImage(pngData: [UInt8](try browser.shownPNG())), rowTwo),
                      "the preview of row 2 is render --set's frame")
        let rowOne = try rendered(["photo": "photos/sunset.jpg", "lang": "en"], into: "row-1")
        XCTAssertFalse(FrameStepperTests.samePixels(rowOne, rowTwo), "the rows differ on screen")

        // The form: a value changed is the variant shown, and the command says it.
        version = try text("document.body.dataset.version")
        _ = try browser.js("""
            (() => { const i = document.getElementById('param-photo'); i.value = 'photos/sunset.jpg'; i.dispatchEvent(new Event('change')); return true; })()
            """)
        XCTAssertNotNil(try browser.wait("document.body.dataset.row === ''", timeout: 10), "the form's values are no row's")
        try waitForVersion(after: version)
        XCTAssertTrue(FrameStepperTests.samePixels(try RGBAImage(pngData: [UInt8](try browser.shownPNG())),
                                                   try rendered(["photo": "photos/sunset.jpg", "lang": "fr"], into: "form")))
        // Only what differs from the defaults is set.
        let command = try text("document.getElementById('command').textContent")
        XCTAssertTrue(command.contains("--report --set lang=fr --mp4"), command)

        // A value the declaration refuses: its error with the JSON path, and the variant stays.
        version = try text("document.body.dataset.version")
        _ = try browser.js("""
            (() => { const i = document.getElementById('param-length'); i.value = '9'; i.dispatchEvent(new Event('input')); return true; })()
            """)
        XCTAssertNotNil(try browser.wait("!document.getElementById('errors').hidden", timeout: 10), "the error shows")
        let said = try text("document.getElementById('error-list').textContent")
        XCTAssertTrue(said.contains("parameters.length"), said)
        XCTAssertEqual(try text("document.body.dataset.version"), version, "the preview keeps the last good variant")
        _ = try browser.js("""
            (() => { const i = document.getElementById('param-length'); i.value = '1.5'; i.dispatchEvent(new Event('input')); return true; })()
            """)
        XCTAssertNotNil(try browser.wait("document.getElementById('errors').hidden", timeout: 10), "fixed, the error goes")
        try waitForVersion(after: version)

        // The Render button renders the variant shown: the frames of render --set, byte for byte.
        try browser.command(["op": "click", "selector": "#render"])
        XCTAssertNotNil(try browser.wait("document.body.dataset.render === 'done'", timeout: 240), "the render finishes")
        let values = ["photo": "photos/sunset.jpg", "lang": "fr", "length": "1.5", "accent": "#112233", "still": "true"]
        let sets = values.keys.sorted().flatMap { ["--set", "\($0)=\(values[$0]!)"] }
        let single = try StudioHarness.run(["render", folder.file("board.json"), "--output", folder.file("single"), "--quiet"] + sets)
        XCTAssertEqual(single.status, 0, single.stderr)
        let frames = try FileManager.default.contentsOfDirectory(atPath: folder.file("single")).filter { $0.hasPrefix("frame-") }.sorted()
        XCTAssertEqual(frames.count, 15, "1.5 s at 10 fps")
        for frame in frames {
            XCTAssertEqual(FileManager.default.contents(atPath: folder.file("out/" + frame)),
                           FileManager.default.contents(atPath: folder.file("single/" + frame)), frame)
        }
        // The refused value's answer (422) is the one error the browser logs.
        XCTAssertEqual(try browser.consoleErrors().filter { !$0.contains("status of 422") }, [])
    }
}
