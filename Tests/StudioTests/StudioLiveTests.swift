import Compositor
import Foundation
import StoryTestSupport
import XCTest

/// Item 7: a live story shows its loading state, then its latest picture, and the page says
/// which; its source is opened only once its story is on screen in the page. The source is
/// MPEG-TS over HTTP from a Python server that counts requests.
final class StudioLiveTests: XCTestCase {
    var folder: ScratchFolder!
    var server: Process!
    var requests: Pipe!
    var studio: StudioProcess!
    var browser: StudioBrowser!

    override func setUpWithError() throws {
        try StudioHarness.requireChromium()
        try StudioHarness.require(FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"),
                                  "ffmpeg is not installed (scripts/install-deps.sh --test installs it)")
        folder = ScratchFolder()
        let made = try ExternalProgram.outcome("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", Fixture.sample("city.mp4"), "-c", "copy",
                                                               "-f", "mpegts", folder.file("live.ts")])
        XCTAssertEqual(made.status, 0, String(decoding: made.stderr, as: UTF8.self))
        // A static server that prints every path it is asked for, and its port first.
        server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", "-u", "-c", """
            import functools, http.server, sys
            class Logged(http.server.SimpleHTTPRequestHandler):
                def log_message(self, *args): pass
                def do_GET(self):
                    print('GET ' + self.path, flush=True)
                    super().do_GET()
            s = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Logged, directory=sys.argv[1]))
            print(s.server_address[1], flush=True)
            s.serve_forever()
            """, folder.path]
        requests = Pipe()
        server.standardOutput = requests
        try server.run()
        let port = try XCTUnwrap(Int(readLine(requests).trimmingCharacters(in: .whitespaces)), "the HTTP server's port")
        try Data("""
        {"canvas": {"width": 180, "height": 320, "fps": 30},
         "stories": [
           {"id": "beach", "items": [{"uri": "\(Fixture.sample("beach.mp4"))", "duration": 4}]},
           {"id": "stage", "items": [{"uri": "http://127.0.0.1:\(port)/live.ts", "live": true, "duration": 4}]}
         ],
         "script": [{"at": 1.0, "action": "swipe", "direction": "next"}]}
        """.utf8).write(to: URL(fileURLWithPath: folder.file("board.json")))
        (studio, browser) = try StudioHarness.open(board: folder.file("board.json"), output: folder.file("out"))
    }

    override func tearDown() {
        browser?.close()
        studio?.stop()
        if let server, server.isRunning { kill(server.processIdentifier, SIGTERM); server.waitUntilExit() }
    }

    /// One line the server printed.
    func readLine(_ pipe: Pipe) throws -> String {
        var line = Data()
        while true {
            let byte = pipe.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// What the server has been asked for so far.
    func requestsSoFar() -> Int {
        var count = 0
        var fds = pollfd(fd: requests.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
        while poll(&fds, 1, 100) > 0 {
            let chunk = requests.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            count += String(decoding: chunk, as: UTF8.self).components(separatedBy: "GET ").count - 1
        }
        return count
    }

    func testALiveStoryLoadsThenShowsItsPictureOnlyOnceOnScreen() throws {
        XCTAssertNotNil(try browser.wait("document.body.dataset.shown === '0'", timeout: 30))
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(requestsSoFar(), 0, "the live story is not on screen: its source stays closed")
        XCTAssertEqual(try browser.js("document.getElementById('live').textContent") as? String, "")

        // Two seconds in, the live story rests on screen: first its loading state, then its picture.
        _ = try browser.js("goTo(60); true")
        XCTAssertNotNil(try browser.wait("document.body.dataset.shown === '60'", timeout: 30))
        XCTAssertEqual(try browser.js("document.body.dataset.live") as? String, "stage=loading")
        XCTAssertTrue((try browser.js("document.getElementById('live').textContent") as? String ?? "").contains("loading"))
        let loading = try browser.shownPNG()
        XCTAssertNotNil(try browser.wait("document.body.dataset.live === 'stage=picture'", timeout: 30), "a picture arrives")
        XCTAssertTrue((try browser.js("document.getElementById('live').textContent") as? String ?? "").contains("latest picture"))
        XCTAssertNotEqual(try browser.shownPNG(), loading, "the frame shows the picture now")
        XCTAssertGreaterThan(requestsSoFar(), 0, "on screen, its source was opened")
        XCTAssertEqual(try browser.consoleErrors(), [])
    }
}
