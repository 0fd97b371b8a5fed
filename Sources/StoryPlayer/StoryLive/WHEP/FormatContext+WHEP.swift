import Foundation
import StoryMedia
import StoryModel

extension FormatContext {
    /// How long a WHEP play's jitter buffer holds a packet for the ones before it (ms): room for a
    /// NACK's retransmission over a loopback or LAN round trip, and every picture comes this much
    /// later. webrtcbin's own default is 200 ms.
    static let whepJitterMilliseconds = 100

    /// Opens a WebRTC source through WHEP (RFC 9725): a session's offer (`WHEPSession`) posted to
    /// the endpoint, its answer set, and the tracks it receives read by a demuxer as MPEG-TS. An
    /// endpoint that refuses (4xx, 5xx) or cannot be reached fails here, with the server's
    /// answer; ICE that never connects gives no media, which the open timeout ends.
    package static func openWHEP(_ source: MediaSource, limits: DecodeLimits, gate: InterruptGate,
                         reception: SourceReception?) throws(MediaError) -> FormatContext {
        let protocols = try permittedProtocols(source, limits: limits)
        let endpoint = source.whepEndpoint
        // `whep` allows WebRTC itself (media over UDP to the server's candidates); the endpoint
        // is reached over its own http or https.
        guard protocols.contains("whep") else {
            throw MediaError(.open, "refused \(source)", cause: "the storyboard's protocols do not allow whep")
        }
        guard let scheme = MediaSource.scheme(of: endpoint), protocols.contains(scheme) else {
            throw MediaError(.open, "refused \(source)", cause: "the storyboard's protocols do not allow \(MediaSource.scheme(of: endpoint) ?? "its scheme")")
        }
        try WHEPSession.load()
        gate.arm(seconds: limits.timeouts.open)
        defer { gate.disarm() }
        // An endpoint on this machine is answered from this machine: ICE offers only the
        // loopback address, so no packet of a test ever leaves it.
        let session = try WHEPSession(jitterMilliseconds: whepJitterMilliseconds, audio: true,
                                      localAddress: loopbackAddress(of: endpoint), gate: gate)
        let offer = try session.offer(timeout: limits.timeouts.open)
        let response: WHEPSignalling.Response
        do {
            response = try WHEPSignalling.exchange("POST", endpoint, body: offer, contentType: "application/sdp",
                                                   timeout: limits.timeouts.open, gate: gate)
        } catch {
            throw explain(error, gate: gate, waiting: "posting the offer to \(endpoint)", seconds: limits.timeouts.open)
        }
        guard response.status == 201 || response.status == 200 else {
            throw MediaError(.open, "the WHEP endpoint \(endpoint) did not take the offer",
                             cause: "it answered \(response.status) \(response.reason)")
        }
        session.resource = WHEPSignalling.location(of: response, from: endpoint)
        reception?.reached(.answered)
        try session.answer(response.body)
        do {
            let format = try FormatContext(input: SegmentInput(feed: session), name: source.description,
                                           options: ["analyzeduration": "100000", "probesize": "1000000"], gate: gate)
            try format.readStreamInfo(limits: limits)
            return format
        } catch {
            throw explain(session.failure ?? error, gate: gate, waiting: "connecting to \(source) (ICE and DTLS)",
                          seconds: limits.timeouts.open, timeoutDetail: " (no media came over WebRTC)")
        }
    }

    /// The loopback address ICE keeps to for an endpoint on this machine: `::1` for an IPv6 one,
    /// else `127.0.0.1`; nil for any other host (every interface is offered, as a browser does).
    static func loopbackAddress(of endpoint: String) -> String? {
        var host = (URL(string: endpoint)?.host ?? "").lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "::1" { return "::1" }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        let isLoopbackIPv4 = octets.count == 4 && octets.first == "127" && octets.allSatisfy { UInt8($0) != nil }
        return host == "localhost" || isLoopbackIPv4 ? "127.0.0.1" : nil
    }
}
