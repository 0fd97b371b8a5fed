import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
import StoryPlayerTestSupport
import XCTest

// MARK: - WHEP against stock WebRTC stacks

extension LiveClockTests {
    /// An unmodified aiortc WHEP endpoint plays. aiortc's DTLS offers the ECDHE-ECDSA cipher
    /// suites only and, answering our actpass offer, is the DTLS client, so the suite is set by
    /// the client's certificate: GStreamer 1.22's own (RSA 2048) shared none with it ("no
    /// shared cipher"; the story failed with "DTLS handshake or ICE"). The client's certificate
    /// is ECDSA P-256, as browsers' are; aiortc logs what it saw.
    func testWHEPPlaysFromAnUnmodifiedAiortcPeer() throws {
        let peer = try servers.stockAiortcWHEP()
        let (reading, stop, _) = try watch(board(peer.url, clock: .virtual, seconds: 4))
        XCTAssertGreaterThanOrEqual(reading.distinctPerSecond, LiveClockTests.smoothFromStockSender(.virtual), reading.diagnosis)
        XCTAssertLessThanOrEqual(reading.hitches, LiveClockTests.startJump, reading.diagnosis)
        XCTAssertEqual(stop.protocolName, "whep")
        let dtls = try XCTUnwrap(peer.events("dtls").first, "aiortc's DTLS never connected: \(peer.events("state"))")
        XCTAssertEqual(dtls["peer_curve"] as? String, "secp256r1", "the client's certificate is ECDSA P-256: \(dtls)")
        XCTAssertEqual((dtls["cipher"] as? String)?.hasPrefix("ECDHE-ECDSA-"), true, "\(dtls)")
    }

    /// GStreamer's own webrtcbin as the sender, as it comes (its RSA 2048 certificate), in both
    /// DTLS roles: answering `active` it is the client and takes the client's ECDSA certificate;
    /// answering `passive` it is the server, and the client's DTLS takes its RSA certificate
    /// (ECDHE-RSA), which every RSA server still needs. Pictures (H.264) and sound (Opus).
    func testWHEPPlaysFromGStreamersWebRTCBinInEitherDTLSRole() throws {
        for setup in ["active", "passive"] {
            let peer = try servers.webrtcbinWHEP(["--setup", setup])
            let (reading, _, _) = try watch(board(peer.url, clock: .virtual, seconds: 4))
            XCTAssertGreaterThanOrEqual(reading.distinctPerSecond, LiveClockTests.smoothFromStockSender(.virtual), "\(setup): \(reading.diagnosis)")
            XCTAssertLessThanOrEqual(reading.hitches, LiveClockTests.startJump, "\(setup): \(reading.diagnosis)")
            let dtls = try XCTUnwrap(peer.events("dtls").first, "\(setup): webrtcbin's DTLS never connected: \(peer.events("state"))")
            XCTAssertEqual(dtls["sender_role"] as? String, setup == "active" ? "client" : "server", "\(dtls)")
            XCTAssertEqual(dtls["sender_key"] as? String, "rsa 2048", "webrtcbin's own certificate: \(dtls)")
            XCTAssertEqual(dtls["receiver_key"] as? String, "ecdsa prime256v1", "\(setup): the client's certificate: \(dtls)")
        }
    }
}
