import Foundation
@testable import StoryLive
@testable import StoryMedia
@testable import StoryModel
import StoryPlayerTestSupport
import XCTest

/// WHEP's HTTP half read as servers write it (pure: no server), and the storyboard's rules for
/// WHEP sources.
final class WHEPSignallingTests: XCTestCase {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    func testA201IsReadWithItsLocationAndBody() throws {
        let raw = bytes("HTTP/1.1 201 Created\r\nContent-Type: application/sdp\r\nLocation: /whep/abc\r\nContent-Length: 5\r\n\r\nv=0\r\nextra")
        XCTAssertTrue(WHEPSignalling.isWhole(raw), "whole at its Content-Length, whatever follows")
        let response = try WHEPSignalling.parse(raw, url: "http://127.0.0.1:8889/whep")
        XCTAssertEqual(response.status, 201)
        XCTAssertEqual(response.body, "v=0\r\n")
        XCTAssertEqual(WHEPSignalling.location(of: response, from: "http://127.0.0.1:8889/whep"), "http://127.0.0.1:8889/whep/abc")
        XCTAssertFalse(WHEPSignalling.isWhole(bytes("HTTP/1.1 201 Created\r\nContent-Length: 50\r\n\r\nv=0")))
    }

    func testAChunkedBodyIsJoinedAndAHostileChunkSizeEndsIt() throws {
        let chunked = bytes("HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nv=0\n\r\n3;x=y\r\no=-\r\n0\r\n\r\n")
        XCTAssertTrue(WHEPSignalling.isWhole(chunked))
        XCTAssertEqual(try WHEPSignalling.parse(chunked, url: "http://h/").body, "v=0\no=-")
        // A size past every byte there is (and past Int's range once added): the body ends there.
        XCTAssertEqual(WHEPSignalling.dechunk(bytes("7fffffffffffffff\r\nabc")), bytes("abc"))
        XCTAssertEqual(WHEPSignalling.dechunk(bytes("zz\r\nabc")), [])
        XCTAssertThrowsError(try WHEPSignalling.parse(bytes("<html>no http</html>"), url: "http://h/"))
    }

    func testICEKeepsToLoopbackOnlyForAnEndpointOnThisMachine() {
        XCTAssertEqual(FormatContext.loopbackAddress(of: "http://127.0.0.1:8889/whep"), "127.0.0.1")
        XCTAssertEqual(FormatContext.loopbackAddress(of: "http://localhost/whep"), "127.0.0.1")
        XCTAssertEqual(FormatContext.loopbackAddress(of: "http://[::1]:8889/whep"), "::1")
        XCTAssertNil(FormatContext.loopbackAddress(of: "https://127.example.com/whep"), "a host name, not an address")
        XCTAssertNil(FormatContext.loopbackAddress(of: "https://example.com/whep"))
    }

    /// A WHEP source is always live; `protocols` must allow `whep` for one to play.
    func testTheStoryboardsRulesForWHEPSources() throws {
        XCTAssertThrowsError(try Storyboard(json: Data(#"{"stories": [{"id": "s", "items": [{"uri": "whep://127.0.0.1/w", "live": false}]}]}"#.utf8),
                                            folder: "/")) { error in
            XCTAssertEqual((error as? StoryboardError)?.path, "stories[0].items[0].live")
        }
        let board = try Storyboard(json: Data(#"{"stories": [{"id": "s", "items": [{"uri": "https://e.com/w", "protocol": "whep"}]}]}"#.utf8),
                                   folder: "/")
        let source = board.stories[0].items[0].source
        XCTAssertTrue(source.isWHEP)
        XCTAssertTrue(board.stories[0].items[0].isLive)
        XCTAssertEqual(source.whepEndpoint, "https://e.com/w")
        XCTAssertEqual(MediaSource(uri: "wheps://e.com/w", relativeTo: "/").whepEndpoint, "https://e.com/w")
        XCTAssertEqual(source.allowedProtocols(narrowedTo: ["https"]).contains("whep"), false, "narrowed without whep: refused at opening")
    }
}
