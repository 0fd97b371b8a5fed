import Foundation
import StoryTestSupport
import XCTest

/// The studio's port held by another program (issue 61, item 17): said so plainly, with no
/// function of the server's in the message, and `--port 0` suggested. In the studio's test
/// target, which the sanitizer builds leave out with the studio itself.
final class StudioPortInUseTests: XCTestCase {
    let folder = ScratchFolder()

    /// 17. A port another program listens on: said so, with no function of the server's in the
    /// message, and `--port 0` suggested.
    func testAPortInUseIsSaidPlainly() throws {
        let photo = StudioHarness.packageRoot.appendingPathComponent("samples/sunset.jpg").path
        let board = folder.file("board.json")
        try Data(#"{"stories": [{"items": [{"uri": "\#(photo)", "duration": 1}]}]}"#.utf8).write(to: URL(fileURLWithPath: board))
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(listener, 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && listen(listener, 1) == 0
                && getsockname(listener, $0, &length) == 0 }
        }
        XCTAssertTrue(bound, "a port to hold")
        let port = Int(UInt16(bigEndian: address.sin_port))
        let result = try StudioHarness.run(["studio", board, "--port", String(port)])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("error: port \(port) on 127.0.0.1 is in use"), result.stderr)
        XCTAssertTrue(result.stderr.contains("--port 0"), result.stderr)
        XCTAssertFalse(result.stderr.contains("bind("), result.stderr)
        XCTAssertFalse(result.stderr.contains("IOError"), result.stderr)
    }
}
