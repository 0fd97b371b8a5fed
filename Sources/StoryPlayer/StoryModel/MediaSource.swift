import Compositor
import Foundation

/// Where an item's media comes from, and which FFmpeg protocols may serve it.
///
/// A remote source may use only network protocols and a local one only `file`, so that a
/// playlist fetched over HTTP can never make FFmpeg read the machine's files.
public struct MediaSource: Sendable, Equatable, CustomStringConvertible {
    /// What FFmpeg opens: an absolute path or a URL.
    public let location: String
    public let isRemote: Bool
    /// Why this source must not be opened at all (a remote feed page naming a local file).
    public let refusal: String?
    /// How its HDR pictures are shown in SDR (the item's `tonemap`). It travels with the source
    /// so every path that shows the item's pictures (player, poster, `still`) maps them alike.
    public var toneMap: ToneMapCurve = .hable
    /// How its pictures fill a screen of another shape (the item's `fit`); nil: the canvas's
    /// (`StoryPlaybackController` sets it from there before a player opens the source).
    public var fit: PictureFit?
    /// The part of a video file the item plays (the item's `in` and `out`): it travels with the
    /// source so every path that reads the file (player, sound, probe, `still`) cuts it alike.
    public var trim: ClipTrim?
    /// Played as WebRTC through WHEP (`whep://`, `wheps://`, or `"protocol": "whep"` on an
    /// `http(s)://` endpoint): the offer is posted to `whepEndpoint`.
    public private(set) var isWHEP = false

    /// `dash` names no FFmpeg protocol (its DASH demuxer fetches over http and https): it is listed so
    /// a storyboard may name it beside `hls` in `protocols`, and FFmpeg ignores it in the whitelist.
    /// `whep` names no FFmpeg protocol either: a WHEP endpoint is reached over http or https, and
    /// `whep` in `protocols` allows WebRTC itself, whatever the URL's scheme (`wheps` is listed
    /// so a feed page may name a `wheps://` endpoint).
    public static let networkProtocols = ["http", "https", "tls", "tcp", "hls", "dash", "rtmp", "rtmps", "srt", "udp", "crypto", "httpproxy",
                                          "whep", "wheps"]
    public static let localProtocols = ["file", "crypto"]
    /// Protocols that only ever carry live streams.
    public static let liveProtocols = ["rtmp", "rtmps", "srt", "udp", "whep", "wheps"]
    /// The schemes of a WHEP endpoint named by its form: `whep://` is posted to over http,
    /// `wheps://` over https.
    public static let whepSchemes = ["whep": "http", "wheps": "https"]
    /// Playlists and manifests of segmented live streams (HLS, DASH).
    public static let livePlaylistExtensions = ["m3u8", "mpd"]

    /// Whether a `uri` names a live stream by its form alone: a live-only protocol, or an HLS
    /// playlist or DASH manifest. Opened as a file, such a source spent most of its time loading
    /// (RTMP: 3.6 s of a 4 s item), so these play live unless the storyboard says `"live": false`.
    public static func isLive(uri: String) -> Bool {
        if let scheme = scheme(of: uri), liveProtocols.contains(scheme) { return true }
        return livePlaylistExtensions.contains(pathExtension(of: uri))
    }

    /// The lower-cased extension of the path of a URI or file name, without its query or fragment.
    static func pathExtension(of uri: String) -> String {
        let path = uri.split(separator: "?", maxSplits: 1).first.map { $0.split(separator: "#", maxSplits: 1).first ?? "" } ?? ""
        guard let name = path.split(separator: "/").last, let dot = name.lastIndex(of: ".") else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// The lower-cased extension of this source's path (`m3u8`, `mp4`, …).
    public var pathExtension: String { MediaSource.pathExtension(of: location) }

    /// A source that is refused before anything is opened.
    public init(refusing uri: String, because reason: String) {
        location = uri
        isRemote = false
        refusal = reason
    }

    /// Resolves a storyboard `uri` against the storyboard's folder.
    public init(uri: String, relativeTo folder: String) {
        refusal = nil
        if let scheme = MediaSource.scheme(of: uri) {
            if scheme == "file" {
                location = URL(string: uri)?.path ?? String(uri.dropFirst("file:".count))
                isRemote = false
            } else {
                location = uri
                isRemote = true
                isWHEP = MediaSource.whepSchemes[scheme] != nil
            }
        } else if uri.hasPrefix("/") {
            location = (uri as NSString).standardizingPath
            isRemote = false
        } else {
            // Normalised, so messages and traces name `/boards/x.mp4`, not `/boards/clips/../x.mp4`.
            location = ((folder as NSString).appendingPathComponent(uri) as NSString).standardizingPath
            isRemote = false
        }
    }

    /// The protocols FFmpeg may use for this source.
    public var allowedProtocols: [String] {
        isRemote ? MediaSource.networkProtocols : MediaSource.localProtocols
    }

    /// This `http(s)://` source played through WHEP (an item's `"protocol": "whep"`); nil for any
    /// other kind of URL, which WHEP cannot reach.
    public func playedThroughWHEP() -> MediaSource? {
        guard isRemote, let scheme = MediaSource.scheme(of: location), ["http", "https"].contains(scheme) else { return nil }
        var source = self
        source.isWHEP = true
        return source
    }

    /// The HTTP URL a WHEP offer is posted to: `whep://` and `wheps://` as `http://` and
    /// `https://`, an `http(s)://` endpoint as it is.
    package var whepEndpoint: String {
        guard let scheme = MediaSource.scheme(of: location), let http = MediaSource.whepSchemes[scheme] else { return location }
        return http + location.dropFirst(scheme.count)
    }

    /// This source's protocols, narrowed by a storyboard's `protocols` list (which never widens them).
    public func allowedProtocols(narrowedTo list: [String]?) -> [String] {
        guard let list else { return allowedProtocols }
        return allowedProtocols.filter(list.contains)
    }

    /// What is handed to `avformat_open_input`: local paths go through `file:` so that a name
    /// with a colon in it is never read as a protocol.
    package var ffmpegURL: String {
        isRemote ? location : "file:" + location
    }

    public var description: String { location }

    /// What tells two sources' pictures apart, for caches of what was read from them: the
    /// location, and the trim (two items cut from one file last and start differently).
    public var identity: String {
        guard let trim else { return location }
        return location + "#in=\(trim.start)" + (trim.end.map { ",out=\($0)" } ?? "")
    }

    /// Resolves a `uri` found in a feed page fetched from `page`. Relative references resolve
    /// against the page's URL. A page fetched over the network may name only network URLs: a
    /// local path or a `file:` URL in it is refused, so a remote feed can never read local files.
    public init(uri: String, inFeedPage page: URL) {
        if page.isFileURL {
            self.init(uri: uri, relativeTo: page.deletingLastPathComponent().path)
            return
        }
        let scheme = MediaSource.scheme(of: uri)
        if scheme == "file" || (scheme == nil && (uri.hasPrefix("/") || uri.hasPrefix("~"))) {
            self.init(refusing: uri, because: "a feed page from \(page.absoluteString) may not name a local file")
            return
        }
        guard let resolved = URL(string: uri, relativeTo: page)?.absoluteURL,
              let resolvedScheme = resolved.scheme?.lowercased(), MediaSource.networkProtocols.contains(resolvedScheme) else {
            self.init(refusing: uri, because: "a feed page from \(page.absoluteString) may name only network URLs")
            return
        }
        self.init(uri: resolved.absoluteString, relativeTo: "/")
    }

    /// `scheme:` at the start of a URI (RFC 3986), or nil for a plain path.
    package static func scheme(of uri: String) -> String? {
        guard let colon = uri.firstIndex(of: ":") else { return nil }
        let candidate = uri[..<colon]
        guard candidate.count >= 2, let first = candidate.first, first.isLetter,
              candidate.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." })
        else { return nil }
        return candidate.lowercased()
    }
}
