/// How an HDR video's light is squeezed into SDR: the curve libavfilter's `tonemap` filter
/// applies (its algorithm names), chosen per item with the storyboard's `tonemap` key.
public enum ToneMapCurve: String, Sendable, CaseIterable {
    /// John Hable's filmic curve: highlights roll off softly and shadows keep their detail.
    /// The default, as in most players that tone-map (mpv, Jellyfin).
    case hable
    /// Linear up to a knee, then a soft roll-off: keeps mid-tones as they were.
    case mobius
    /// A simple curve that compresses everything a little.
    case reinhard
    /// No curve: light above SDR white is cut off (bright areas burn out).
    case clip
}

/// An item's `protocol`: how a source whose URL does not say it is played.
public enum SourceProtocol: String, Sendable, CaseIterable {
    /// WebRTC through WHEP: the `http(s)://` URL is the endpoint the offer is posted to.
    case whep
}
