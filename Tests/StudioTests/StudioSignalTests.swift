import Foundation
import Glibc
import StoryTestSupport
import XCTest

/// `render-stories studio` stops on SIGINT and SIGTERM through the CLI's one signal helper, as
/// docs/studio.md says: the server stops even with a page still open that does not answer, a
/// render its Render button started is stopped as a render's Ctrl-C stops it, it exits 0, and no
/// temporary file is left.
final class StudioSignalTests: XCTestCase {
    var folder: ScratchFolder!
    var studio: StudioProcess!

    override func setUpWithError() throws {
        folder = ScratchFolder()
        let boardFolder = folder.file("board")
        try FileManager.default.createDirectory(atPath: boardFolder, withIntermediateDirectories: true)
        // Large enough that the render is still drawing when the signal comes.
        let board = try StudioHarness.writeDemo(into: boardFolder, width: 360, height: 640)
        do {
            studio = try StudioProcess(board: board, output: folder.file("out"))
        } catch {
            // A server that does not start fails, under CI and anywhere else.
            XCTFail("\(error)")
            throw error
        }
    }

    override func tearDown() {
        studio?.stop()
    }

    /// The studio's exit status once it has ended, or nil while it still runs after `seconds`:
    /// a bound far above the two seconds a page that does not answer is given.
    func exitStatus(within seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while studio.process.isRunning, Date() < deadline { usleep(50_000) }
        return studio.process.isRunning ? nil : studio.process.terminationStatus
    }

    /// A WebSocket on /ws, upgraded and then silent: a page in a frozen tab, which never answers
    /// the server's close. The descriptor, for the test to close.
    func openSilentPage() throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(studio.port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr)
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else { throw StudioTestFailure("cannot connect to the studio: errno \(errno)") }
        let request = "GET /ws?token=\(studio.token) HTTP/1.1\r\nHost: 127.0.0.1:\(studio.port)\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var answer = [UInt8](repeating: 0, count: 1024)
        let count = recv(fd, &answer, answer.count, 0)
        guard count > 0, String(decoding: answer[0..<count], as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
            close(fd)
            throw StudioTestFailure("the WebSocket was not upgraded")
        }
        return fd
    }

    /// Before the CLI took the studio's signals, Hummingbird's own handling waited for every
    /// page to close its WebSocket: one that did not answer kept the studio running for good.
    func testCtrlCStopsTheStudioWithAPageThatDoesNotAnswer() throws {
        let page = try openSilentPage()
        defer { close(page) }
        kill(studio.process.processIdentifier, SIGINT)
        XCTAssertEqual(exitStatus(within: 60), 0, "Ctrl-C stops the studio, which exits 0")
    }

    func testSIGTERMStopsItsRenderAsCtrlCStopsARender() throws {
        let http = RawHTTP(address: "127.0.0.1", port: studio.port)
        let started = try http.request("POST", "/api/render?token=\(studio.token)", body: Data("{}".utf8))
        XCTAssertEqual(started.status, 202, String(decoding: started.body, as: UTF8.self))
        // Signalled once the render has drawn a frame.
        let out = folder.file("out")
        let deadline = Date().addingTimeInterval(120)
        func files() -> [String] { FileManager.default.enumerator(atPath: out)?.compactMap { $0 as? String } ?? [] }
        while !files().contains(where: { $0.hasPrefix("frame-") }), Date() < deadline { usleep(50_000) }
        XCTAssertTrue(files().contains { $0.hasPrefix("frame-") }, "the render draws frames")
        kill(studio.process.processIdentifier, SIGTERM)
        XCTAssertEqual(exitStatus(within: 120), 0, "SIGTERM stops the studio, which exits 0")
        // The render was stopped at its next frame and wrote what it had: its summary says so.
        let summary = try String(contentsOfFile: out + "/summary.json", encoding: .utf8)
        XCTAssertTrue(summary.contains("\"interrupted\": true"), summary)
        XCTAssertEqual(files().filter { $0.hasSuffix(".tmp") || ($0 as NSString).lastPathComponent.hasPrefix(".") }, [],
                       "no temporary file is left")
    }
}
