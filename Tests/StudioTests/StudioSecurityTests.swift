import Foundation
import StoryTestSupport
import XCTest

/// Item 6: the studio answers only its own page. Each refusal is checked beside the same
/// request done right, which succeeds, so every check can fail.
final class StudioSecurityTests: XCTestCase {
    var folder: ScratchFolder!
    var studio: StudioProcess!
    var http: RawHTTP!

    override func setUpWithError() throws {
        folder = ScratchFolder()
        let boardFolder = folder.file("board")
        try FileManager.default.createDirectory(atPath: boardFolder, withIntermediateDirectories: true)
        let board = try StudioHarness.writeDemo(into: boardFolder)
        // A secret beside the board's folder, and a link to it from inside.
        try "secret".write(toFile: folder.file("secret.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: boardFolder + "/link-out.txt", withDestinationPath: folder.file("secret.txt"))
        try "inside".write(toFile: boardFolder + "/inside.txt", atomically: true, encoding: .utf8)
        do {
            studio = try StudioProcess(board: board, output: folder.file("out"))
        } catch {
            // A server that does not start fails, under CI and anywhere else.
            XCTFail("\(error)")
            throw error
        }
        http = RawHTTP(address: "127.0.0.1", port: studio.port)
    }

    override func tearDown() {
        studio?.stop()
    }

    var token: String { "token=" + studio.token }

    func testTheRightRequestIsServed() throws {
        XCTAssertEqual(try http.get("/?\(token)").status, 200)
        XCTAssertEqual(try http.get("/api/frame?n=3&\(token)").status, 200)
        XCTAssertEqual(try http.get("/api/frame?n=99999&\(token)").status, 200, "past the end: the last frame, said in X-Studio-Frame")
        // Found by an audit: no number at all was frame 0, answered 200.
        XCTAssertEqual(try http.get("/api/frame?n=abc&\(token)").status, 400)
        XCTAssertEqual(try http.get("/api/frame?n=1.5&\(token)").status, 400)
        XCTAssertEqual(try http.get("/files/inside.txt?\(token)").status, 200)
        XCTAssertEqual(try http.get("/files/inside.txt?\(token)").body, Data("inside".utf8))
        XCTAssertEqual(try http.get("/?\(token)", host: "localhost:\(studio.port)").status, 200)
    }

    func testAWrongHostIsRefused() throws {
        XCTAssertEqual(try http.get("/?\(token)", host: "evil.example:\(studio.port)").status, 403)
        XCTAssertEqual(try http.get("/?\(token)", host: "127.0.0.1:1").status, 403, "another port")
        XCTAssertEqual(try http.get("/api/state?\(token)", host: "localhost.evil.example").status, 403)
    }

    func testAMissingOrWrongTokenIsRefused() throws {
        XCTAssertEqual(try http.get("/").status, 401)
        XCTAssertEqual(try http.get("/api/state").status, 401)
        XCTAssertEqual(try http.get("/api/frame?n=0").status, 401)
        XCTAssertEqual(try http.get("/files/inside.txt?token=0000").status, 401)
        // The WebSocket too: an upgrade without the token is refused before it upgrades.
        let upgrade = ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                       "Sec-WebSocket-Version: 13"]
        // (Hummingbird's upgrade handler answers a refused upgrade with 400, whatever the status.)
        let refused = try http.get("/ws", headers: upgrade).status
        XCTAssertTrue(refused == 401 || refused == 400, "refused: \(refused)")
        XCTAssertTrue([400, 401].contains(try http.get("/ws?token=0000", headers: upgrade).status))
        XCTAssertEqual(try http.get("/ws?\(token)", headers: upgrade).status, 101, "with the token it upgrades")
    }

    func testPathsOutOfTheFolderAreRefused() throws {
        XCTAssertEqual(try http.get("/files/../secret.txt?\(token)").status, 403)
        XCTAssertEqual(try http.get("/files/%2e%2e/secret.txt?\(token)").status, 403)
        XCTAssertEqual(try http.get("/files/a/../../secret.txt?\(token)").status, 403)
        XCTAssertEqual(try http.get("/files//etc/passwd?\(token)").status, 403, "absolute")
        XCTAssertEqual(try http.get("/files/%2Fetc%2Fpasswd?\(token)").status, 403, "absolute, encoded")
        XCTAssertEqual(try http.get("/out/../board/inside.txt?\(token)").status, 403)
        let link = try http.get("/files/link-out.txt?\(token)")
        XCTAssertEqual(link.status, 403, "a symlink out of the folder")
        XCTAssertFalse(String(decoding: link.body, as: UTF8.self).contains("secret"))
    }

    /// Bound to 127.0.0.1 only: another loopback address, and the machine's own, find nothing.
    func testNotReachableOnAnotherAddress() throws {
        XCTAssertThrowsError(try RawHTTP(address: "127.0.0.2", port: studio.port).get("/?\(token)"))
        for address in Self.otherAddresses() {
            XCTAssertThrowsError(try RawHTTP(address: address, port: studio.port).get("/?\(token)"), address)
        }
    }

    /// The machine's IPv4 addresses other than loopback.
    static func otherAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var addresses: [String] = []
        var cursor = list
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let addr = entry.pointee.ifa_addr, addr.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(addr, socklen_t(MemoryLayout<sockaddr_in>.size), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = String(cString: host)
            if !text.hasPrefix("127.") { addresses.append(text) }
        }
        return addresses
    }
}
