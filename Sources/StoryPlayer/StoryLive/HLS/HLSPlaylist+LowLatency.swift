import Foundation
import StoryMedia

// MARK: - Low-Latency HLS (RFC 8216bis)

extension HLSPlaylist {
    /// `EXT-X-SERVER-CONTROL`: how close to its edge the server lets a player play, and how.
    struct ServerControl: Sendable, Equatable {
        /// `CAN-BLOCK-RELOAD=YES`: a reload with `_HLS_msn` (and `_HLS_part`) is held until the
        /// playlist holds that segment (or part), so a player learns of it the moment it is listed.
        var canBlockReload = false
        /// `PART-HOLD-BACK`: the least distance from the edge at which to play parts.
        var partHoldBack: Double?
        /// `HOLD-BACK`: the same for whole segments.
        var holdBack: Double?
        /// `CAN-SKIP-UNTIL`: a reload with `_HLS_skip=YES` leaves out segments older than this
        /// from the end (a delta update).
        var canSkipUntil: Double?

        init() {}

        init(_ attributes: [String: String]) {
            canBlockReload = attributes["CAN-BLOCK-RELOAD"] == "YES"
            func seconds(_ name: String) -> Double? {
                attributes[name].flatMap(Double.init).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            }
            // Bounded as a storyboard's target is (`LiveLatency.allowed`): the server's numbers
            // become the player's target and the trace's `target_ms`.
            partHoldBack = seconds("PART-HOLD-BACK").flatMap { $0 > 0 && $0 <= 600 ? $0 : nil }
            holdBack = seconds("HOLD-BACK").flatMap { $0 > 0 && $0 <= 600 ? $0 : nil }
            canSkipUntil = seconds("CAN-SKIP-UNTIL").flatMap { $0 > 0 ? $0 : nil }
        }
    }

    /// Whether the playlist is Low-Latency HLS as this program reads it: it lists parts (a part
    /// target and at least one part), none of them a byte range of a growing file, and its
    /// sound comes with its pictures (a master playlist's separate audio rendition is FFmpeg's
    /// demuxer's to play). Any other is played as plain HLS, by FFmpeg's demuxer.
    var isLowLatency: Bool {
        let all = trailingParts + segments.flatMap(\.parts)
        return partTarget != nil && !all.isEmpty && !all.contains { $0.isByteRange } && !hasAlternateAudio
    }

    /// The target a player keeps behind the edge by default: `PART-HOLD-BACK` (at least three
    /// part targets, which the RFC requires of it), as hls.js and AVPlayer play Low-Latency HLS.
    var lowLatencyTarget: Double? {
        guard isLowLatency else { return nil }
        let floor = 3 * (partTarget ?? 0)
        return min(max(serverControl.partHoldBack ?? floor, floor), 600)
    }

    /// A place in the stream: part `part` of segment `sequence` (0 for a whole segment).
    struct PartPosition: Sendable, Equatable, Comparable {
        var sequence: Int
        var part: Int

        static func < (a: PartPosition, b: PartPosition) -> Bool {
            (a.sequence, a.part) < (b.sequence, b.part)
        }
    }

    /// One readable piece at a place: a part, or a whole segment whose parts are no longer listed.
    struct Piece: Sendable, Equatable {
        let position: PartPosition
        let uri: String
        let duration: Double
        let independent: Bool
        /// A whole segment: the next piece is the following segment's first.
        let isWholeSegment: Bool
        /// `GAP=YES`: passed over, never fetched.
        var gap = false
    }

    /// Every piece the playlist lists, oldest first: a segment's parts where it lists them, else
    /// the segment whole; then the parts of the segment being written.
    var pieces: [Piece] {
        var pieces: [Piece] = []
        for segment in segments {
            if segment.parts.isEmpty {
                pieces.append(Piece(position: PartPosition(sequence: segment.sequence, part: 0), uri: segment.uri,
                                    duration: segment.duration, independent: true, isWholeSegment: true))
            } else {
                for (index, part) in segment.parts.enumerated() {
                    pieces.append(Piece(position: PartPosition(sequence: segment.sequence, part: index), uri: part.uri,
                                        duration: part.duration, independent: part.independent || index == 0, isWholeSegment: false,
                                        gap: part.gap))
                }
            }
        }
        for (index, part) in trailingParts.enumerated() {
            pieces.append(Piece(position: PartPosition(sequence: nextSequence, part: index), uri: part.uri,
                                duration: part.duration, independent: part.independent || index == 0, isWholeSegment: false,
                                gap: part.gap))
        }
        return pieces
    }

    /// The place right after the newest listed piece: what the preload hint names.
    var nextPosition: PartPosition {
        if !trailingParts.isEmpty { return PartPosition(sequence: nextSequence, part: trailingParts.count) }
        return PartPosition(sequence: nextSequence, part: 0)
    }

    /// Where a play `behind` seconds from the edge starts: the newest piece that a decoder can
    /// start at (independent) and that is at least that far from the end of the newest listed
    /// one; else the oldest independent piece. With the piece, how far its start lies into its
    /// segment (seconds), since the edge is measured from segment starts (`SegmentLedger`).
    func start(behind: Double) -> (piece: Piece, offsetInSegment: Double)? {
        let pieces = pieces
        guard !pieces.isEmpty else { return nil }
        var fromEnd = 0.0
        var chosen: Int?
        for index in pieces.indices.reversed() {
            fromEnd += pieces[index].duration
            if pieces[index].independent, !pieces[index].gap {
                chosen = index
                if fromEnd >= behind - 1e-6 { break }
            }
        }
        guard let index = chosen else { return nil }
        let piece = pieces[index]
        let offset = pieces[..<index].filter { $0.position.sequence == piece.position.sequence }.reduce(0) { $0 + $1.duration }
        return (piece, offset)
    }

    /// The reload of `url` that the server holds until the piece at `position` is listed
    /// (`_HLS_msn`, `_HLS_part`), asking for a delta update (`_HLS_skip=YES`) when the server
    /// offers one and `skip` says the player can do with one. The URL as it was for a server that
    /// blocks nothing.
    func reloadURL(_ url: String, waitingFor position: PartPosition?, skip: Bool) -> String {
        var query: [String] = []
        if let position, serverControl.canBlockReload {
            query.append("_HLS_msn=\(position.sequence)")
            if isLowLatency { query.append("_HLS_part=\(position.part)") }
        }
        if skip, serverControl.canSkipUntil != nil { query.append("_HLS_skip=YES") }
        guard !query.isEmpty else { return url }
        let (base, fragment) = url.firstIndex(of: "#").map { (String(url[..<$0]), String(url[$0...])) } ?? (url, "")
        return base + (base.contains("?") ? "&" : "?") + query.joined(separator: "&") + fragment
    }

    /// A delta update read over the full playlist before it: the segments it skipped taken from
    /// `earlier`, so the result lists what a full reload would have. Nil when `earlier` does not
    /// hold every skipped segment (it is too old): the playlist must then be read whole.
    func filling(skippedFrom earlier: HLSPlaylist) -> HLSPlaylist? {
        guard skippedSegments > 0 else { return self }
        var whole = self
        let firstListed = segments.first?.sequence ?? nextSequence
        let missing = earlier.segments.filter { $0.sequence >= firstListed - skippedSegments && $0.sequence < firstListed }
        guard missing.count == skippedSegments else { return nil }
        whole.segments = missing + segments
        whole.skippedSegments = 0
        if whole.mapURI == nil { whole.mapURI = earlier.mapURI }
        return whole
    }
}

extension HLSPlaylist {
    /// Reads `line` if it is one of Low-Latency HLS's tags (a part, the server's offers, the part
    /// target, the preload hint, a delta update's skip), for `init(text:)`: `sequence` and
    /// `parts` are that reading's. False for any other line.
    mutating func readLowLatencyTag(_ line: String, sequence: inout Int, parts: inout [Part]) -> Bool {
        if let value = HLSPlaylist.value(of: "#EXT-X-PART:", in: line) {
            let list = HLSPlaylist.attributes(value)
            if let uri = list["URI"], let length = list["DURATION"].flatMap(Double.init), length.isFinite, length >= 0, length < 600 {
                parts.append(Part(duration: length, uri: uri, independent: list["INDEPENDENT"] == "YES", gap: list["GAP"] == "YES",
                                  isByteRange: list["BYTERANGE"] != nil))
            }
        } else if let value = HLSPlaylist.value(of: "#EXT-X-SERVER-CONTROL:", in: line) {
            serverControl = ServerControl(HLSPlaylist.attributes(value))
        } else if let value = HLSPlaylist.value(of: "#EXT-X-PART-INF:", in: line) {
            // A target is a few tenths of a second: one that is no such number says nothing.
            partTarget = HLSPlaylist.attributes(value)["PART-TARGET"].flatMap(Double.init).flatMap { $0.isFinite && $0 > 0 && $0 < 60 ? $0 : nil }
        } else if let value = HLSPlaylist.value(of: "#EXT-X-PRELOAD-HINT:", in: line) {
            let list = HLSPlaylist.attributes(value)
            // A hint of a byte range of a growing file would need ranged requests: not taken.
            if list["TYPE"] == "PART", list["BYTERANGE-START"] == nil { preloadHint = list["URI"] }
        } else if let value = HLSPlaylist.value(of: "#EXT-X-SKIP:", in: line) {
            // A delta update: the oldest segments are left out, and the first listed one's
            // number is counted past them.
            let skipped = min(max(0, HLSPlaylist.attributes(value)["SKIPPED-SEGMENTS"].flatMap { Int($0) } ?? 0), HLSPlaylist.largestSequence)
            if segments.isEmpty, parts.isEmpty, skippedSegments == 0 {
                skippedSegments = skipped
                sequence = min(sequence + skipped, HLSPlaylist.largestSequence)
            }
        } else {
            return false
        }
        return true
    }
}
