import Foundation
import StoryMedia
import Synchronization

/// How far a DASH publisher's clock is from this machine's, read from the manifest's `UTCTiming`
/// (ISO/IEC 23009-1, 5.8.5.7): a counted template's segments come out on the publisher's clock,
/// so a player whose own clock is off asks for a segment too early (404) or sits too far behind.
/// dash.js reads it the same way before it starts a live play.
///
/// Read once per timing URL and process (a `Mutex`ed cache): the clocks do not drift apart
/// within a render.
enum DASHServerClock {
    private static let known = Mutex<[String: Double]>([:])

    /// The schemes whose response body is the server's time.
    static let bodySchemes = ["urn:mpeg:dash:utc:http-xsdate:2014", "urn:mpeg:dash:utc:http-iso:2014",
                              "urn:mpeg:dash:utc:http-xsdate:2012", "urn:mpeg:dash:utc:http-iso:2012"]

    /// Seconds to add to this machine's clock for the publisher's: from the timing server the
    /// manifest names (`http-xsdate` or `http-iso`: its body a date, taken as read halfway through
    /// the request); 0 when it names none of those (`direct` and `http-head` are not read), or the
    /// server cannot be reached within `timeout` a step.
    static func offset(of manifest: DASHManifest, manifestURL: String, protocols: [String], gate: InterruptGate,
                       timeout: Double) -> Double {
        guard let timing = manifest.utcTiming, bodySchemes.contains(timing.scheme),
              let url = URL(string: timing.value, relativeTo: URL(string: manifestURL))?.absoluteString,
              let scheme = URL(string: url)?.scheme?.lowercased(), protocols.contains(scheme) else { return 0 }
        if let offset = known.withLock({ $0[url] }) { return offset }
        let sent = Date().timeIntervalSince1970
        guard let text = PlaylistWatch.fetchText(url, gate: gate, timeout: timeout),
              let server = DASHManifest.date(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return 0 }
        let received = Date().timeIntervalSince1970
        let offset = server - (sent + received) / 2
        // A clock hours away is a timing server that says something else: not trusted.
        guard abs(offset) < 3600 else { return 0 }
        known.withLock { $0[url] = offset }
        return offset
    }
}
