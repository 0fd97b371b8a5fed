import Foundation
import XCTest

/// A WHEP server on 127.0.0.1 (`Tests/Support/Python/whep_peer.py`, aiortc from PyPI): each POSTed
/// offer gets a peer that sends a clock-coded 30 fps picture (H.264) with a sine as Opus. Its
/// options make the failures a viewer meets: packets lost, an endpoint that refuses, ICE that
/// never connects, media that stops. It logs what it did (NACKs and PLIs received, packets
/// dropped), which is how a test sees the receiver's recovery.
public struct WHEPPeer {
    public static let script = Fixture.packageRoot.appendingPathComponent("Tests/Support/Python/whep_peer.py").path
    /// The interoperability peers: an unmodified aiortc, and GStreamer's webrtcbin as the sender.
    public static let stockAiortc = Fixture.packageRoot.appendingPathComponent("Tests/Support/Python/whep_aiortc.py").path
    public static let webrtcbin = Fixture.packageRoot.appendingPathComponent("Tests/Support/Python/whep_webrtcbin.py").path

    public let port: Int
    public let log: String

    /// `whep://` for the endpoint.
    public var url: String { "whep://127.0.0.1:\(port)/whep" }

    /// Each event the peer logged so far.
    public func events(_ name: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == name }
    }
}

extension ServerSet {
    /// Starts a WHEP peer with `options` (`--drop 0.02`, `--status 503`, …) and waits until it listens.
    public func whepPeer(_ options: [String] = []) throws -> WHEPPeer {
        try whepServer(WHEPPeer.script, options, needs: "pip install aiortc==1.16.0")
    }

    /// An unmodified aiortc WHEP endpoint (`Tests/Support/Python/whep_aiortc.py`): ECDSA P-256
    /// certificate, ECDHE-ECDSA cipher suites only, the DTLS client.
    public func stockAiortcWHEP() throws -> WHEPPeer {
        try whepServer(WHEPPeer.stockAiortc, [], needs: "pip install aiortc==1.16.0")
    }

    /// A WHEP endpoint whose sender is GStreamer 1.22's webrtcbin (`Tests/Support/Python/whep_webrtcbin.py`,
    /// its own RSA 2048 DTLS certificate), with `options` (`--setup passive`).
    public func webrtcbinWHEP(_ options: [String] = []) throws -> WHEPPeer {
        try whepServer(WHEPPeer.webrtcbin, options, needs: "apt-get install python3-gi gir1.2-gst-plugins-bad-1.0")
    }

    private func whepServer(_ script: String, _ options: [String], needs: String) throws -> WHEPPeer {
        try LiveServers.require("python3")
        let name = "whep-\(UUID().uuidString.prefix(8))"
        let port = LiveServers.freePort()
        let log = folder.file(name + "-events.jsonl")
        let process = try start("python3", [script, "--port", String(port), "--log", log] + options, name: name)
        guard LiveServers.waitUntil(20, { LiveServers.accepts(port: port) }) else {
            throw LiveServers.unavailable("the WHEP server \((script as NSString).lastPathComponent) did not start (\(needs)): \(process.output)")
        }
        return WHEPPeer(port: port, log: log)
    }
}
