import Foundation
import StoryMedia

/// What a live HLS media playlist says about its live edge: its segments in order, with their
/// durations and, where the publisher writes them, `EXT-X-PROGRAM-DATE-TIME`.
///
/// Pure, so that it is tested on playlists as publishers write them (ffmpeg's hls muxer,
/// GStreamer's hlssink2) without a server.
package struct HLSPlaylist: Sendable, Equatable {
    struct Segment: Sendable, Equatable {
        /// The media sequence number.
        let sequence: Int
        let duration: Double
        /// When its first picture was made (seconds since 1970), from `EXT-X-PROGRAM-DATE-TIME`.
        let programDate: Double?
        /// Its URI as the playlist writes it (often relative to the playlist).
        var uri = ""
        /// Its partial segments (`EXT-X-PART`, Low-Latency HLS), where the playlist still lists them.
        var parts: [Part] = []
    }

    /// A partial segment (`EXT-X-PART`): a few pictures of a segment, listed as soon as they are
    /// written, which is what lets a Low-Latency HLS player stay a second behind the publisher.
    struct Part: Sendable, Equatable {
        let duration: Double
        let uri: String
        /// `INDEPENDENT=YES`: it starts with a keyframe, so a play may start at it.
        var independent = false
        /// `GAP=YES`: the publisher could not make it.
        var gap = false
        /// `BYTERANGE`: a range of a growing file, which this reader does not ask for.
        var isByteRange = false
    }

    var targetDuration: Double?
    var segments: [Segment] = []
    /// `#EXT-X-ENDLIST`: no segment will follow the last one listed.
    package var hasEnded = false
    /// A master playlist's variants (`EXT-X-STREAM-INF`): URI and bandwidth.
    var variants: [(uri: String, bandwidth: Int)] = []
    /// A master playlist names sound apart from its variants (`EXT-X-MEDIA:TYPE=AUDIO` with a
    /// URI); kept on the variant read through it (`PlaylistWatch.fetchMediaOrHead`).
    var hasAlternateAudio = false

    // MARK: Low-Latency HLS (RFC 8216bis)

    /// `EXT-X-SERVER-CONTROL`: what the server offers (`HLSPlaylist+LowLatency`).
    var serverControl = ServerControl()
    /// `EXT-X-PART-INF:PART-TARGET`: the longest a part may be.
    var partTarget: Double?
    /// The parts of the segment being written, after the last complete one: they belong to the
    /// segment numbered `nextSequence`.
    var trailingParts: [Part] = []
    /// `EXT-X-PRELOAD-HINT:TYPE=PART`: the part the publisher is writing now, which a request
    /// may ask for before it is listed (the server holds it until the part is there).
    var preloadHint: String?
    /// `EXT-X-MAP:URI`: the initialization section (fragmented MP4's `moov`).
    var mapURI: String?
    /// `EXT-X-SKIP:SKIPPED-SEGMENTS`: how many of the oldest segments a delta update left out.
    var skippedSegments = 0
    /// The sequence number the next segment will have: after the last listed.
    var nextSequence = 0

    /// It lists a segment, or has ended.
    package var lists: Bool { !segments.isEmpty || hasEnded }

    /// A media playlist of a live broadcast that has not started: its publisher has written
    /// its head, and lists no segment yet.
    package var awaitsFirstSegment: Bool { segments.isEmpty && !hasEnded && variants.isEmpty }

    /// How often to read a playlist again for a segment that has not come: half its target
    /// duration (RFC 8216, 6.3.4: after a reload that changed nothing), from 0.1 s to 1 s.
    package var rereadInterval: Double { min(1, max(0.1, (targetDuration ?? 1) / 2)) }

    package static func == (a: HLSPlaylist, b: HLSPlaylist) -> Bool {
        a.targetDuration == b.targetDuration && a.segments == b.segments && a.hasEnded == b.hasEnded
            && a.variants.map(\.uri) == b.variants.map(\.uri) && a.variants.map(\.bandwidth) == b.variants.map(\.bandwidth)
            && a.serverControl == b.serverControl && a.partTarget == b.partTarget && a.trailingParts == b.trailingParts
            && a.preloadHint == b.preloadHint && a.mapURI == b.mapURI && a.skippedSegments == b.skippedSegments
    }

    /// The largest sequence number read: far past any real one, far from overflowing as it is
    /// counted on.
    static let largestSequence = 1 << 53

    /// Reads playlist text; nil when it is not an HLS playlist (`#EXTM3U` first).
    init?(text: String) {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first?.hasPrefix("#EXTM3U") == true else { return nil }
        var sequence = 0
        var duration: Double?
        var programDate: Double?
        var bandwidth: Int?
        var parts: [Part] = []
        for line in lines.dropFirst() where !line.isEmpty {
            if let value = HLSPlaylist.value(of: "#EXT-X-TARGETDURATION:", in: line) {
                targetDuration = Double(value)
            } else if let value = HLSPlaylist.value(of: "#EXT-X-MEDIA-SEQUENCE:", in: line) {
                // Before the first segment only, as the RFC has it, and bounded: a playlist's
                // numbers come from the network, and are counted on from here.
                if segments.isEmpty, parts.isEmpty { sequence = min(max(Int(value) ?? 0, 0), HLSPlaylist.largestSequence) }
            } else if let value = HLSPlaylist.value(of: "#EXTINF:", in: line) {
                duration = Double(value.split(separator: ",", maxSplits: 1).first ?? "")
            } else if let value = HLSPlaylist.value(of: "#EXT-X-PROGRAM-DATE-TIME:", in: line) {
                programDate = HLSPlaylist.date(value)
            } else if line.hasPrefix("#EXT-X-ENDLIST") {
                hasEnded = true
            } else if let value = HLSPlaylist.value(of: "#EXT-X-MEDIA:", in: line) {
                let list = HLSPlaylist.attributes(value)
                if list["TYPE"] == "AUDIO", list["URI"] != nil { hasAlternateAudio = true }
            } else if let value = HLSPlaylist.value(of: "#EXT-X-STREAM-INF:", in: line) {
                bandwidth = HLSPlaylist.attributes(value)["BANDWIDTH"].flatMap { Int($0) } ?? 0
            } else if readLowLatencyTag(line, sequence: &sequence, parts: &parts) {
                continue
            } else if let value = HLSPlaylist.value(of: "#EXT-X-MAP:", in: line) {
                if mapURI == nil { mapURI = HLSPlaylist.attributes(value)["URI"] }
            } else if !line.hasPrefix("#") {
                if let bandwidth {
                    variants.append((line, bandwidth))
                } else if let segmentDuration = duration {
                    segments.append(Segment(sequence: sequence, duration: segmentDuration, programDate: programDate, uri: line, parts: parts))
                    sequence += 1
                }
                duration = nil
                programDate = nil
                bandwidth = nil
                parts = []
            }
        }
        trailingParts = parts
        nextSequence = sequence
    }

    /// The sequence number of the segment whose URL the demuxer opened first among `openedURLs`
    /// (in the order it opened them): where it really started, which `startSequence()` only
    /// predicts from a read that may be a segment older than the demuxer's own. URLs are matched
    /// by their path's last component, as a relative URI is resolved against the playlist's.
    package func sequence(openedFirstAmong openedURLs: [String]) -> Int? {
        func name(_ url: String) -> Substring {
            let path = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return path.split(separator: "/").last ?? path
        }
        for url in openedURLs {
            if let segment = segments.first(where: { !$0.uri.isEmpty && name($0.uri) == name(url) }) { return segment.sequence }
        }
        return nil
    }

    /// The sequence number FFmpeg's demuxer starts a live playlist at (its `live_start_index`,
    /// -3 by default: the third segment from the end, or the first of a shorter list).
    func startSequence(liveStartIndex: Int = -3) -> Int? {
        guard let first = segments.first else { return nil }
        return first.sequence + Swift.max(segments.count + liveStartIndex, 0)
    }

    static func value(of tag: String, in line: String) -> String? {
        line.hasPrefix(tag) ? String(line.dropFirst(tag.count)) : nil
    }

    /// An attribute list (RFC 8216, 4.2): `NAME=value` pairs apart by commas, a quoted value
    /// (which may hold commas) without its quotes.
    static func attributes(_ list: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(list)
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: equals)...]
            let value: Substring
            if rest.first == "\"" {
                let body = rest.dropFirst()
                let close = body.firstIndex(of: "\"") ?? body.endIndex
                value = body[..<close]
                rest = close < body.endIndex ? body[body.index(after: close)...] : ""
                rest = rest.drop { $0 != "," }
            } else {
                let comma = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<comma]
                rest = rest[comma...]
            }
            rest = rest.drop { $0 == "," || $0 == " " }
            if !name.isEmpty { result[name] = String(value) }
        }
        return result
    }

    /// An ISO 8601 date with or without fractional seconds, as publishers write it.
    static func date(_ text: String) -> Double? {
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        // ffmpeg writes `+0000` offsets, which ISO8601DateFormatter reads only with a colon.
        var normalized = text
        if let sign = normalized.lastIndex(where: { $0 == "+" || $0 == "-" }), normalized.distance(from: sign, to: normalized.endIndex) == 5,
           normalized.contains("T") {
            normalized.insert(":", at: normalized.index(sign, offsetBy: 3))
        }
        return (fractional.date(from: normalized) ?? plain.date(from: normalized))?.timeIntervalSince1970
    }
}
