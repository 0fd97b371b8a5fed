import Foundation
import StoryMedia

/// One representation of a live DASH manifest, and the segments it lists: what `DASHSegmentFeed`
/// fetches, in order, instead of FFmpeg's DASH demuxer.
///
/// Two ways of listing segments are read, the two that live publishers write: a
/// `SegmentTemplate` with a `SegmentTimeline` (ffmpeg's dash muxer, most packagers: each
/// segment's media time and duration, numbered from `startNumber`), and a `SegmentTemplate`
/// with a fixed `duration` (GStreamer's dashsink: numbered segments, the newest known from the
/// manifest's clock). `SegmentList`, `SegmentBase` and `BaseURL` are not read: a manifest that
/// needs them fails its item with a reason that says so.
struct DASHRepresentation: Sendable, Equatable {
    enum Kind: Sendable, Equatable { case video, audio, other }

    var kind: Kind
    var id: String
    var bandwidth: Int
    /// `mimeType`, e.g. "video/mp4" or "video/mp2t".
    var mimeType: String
    var template = Template()

    /// A `SegmentTemplate`, as given on the adaptation set and refined on the representation.
    struct Template: Sendable, Equatable {
        var timescale: Double = 1
        var initialization: String?
        var media: String?
        var startNumber = 1
        /// `presentationTimeOffset`, in ticks: the media time at which the period starts.
        var presentationTimeOffset: Double = 0
        /// A fixed segment duration in ticks (no timeline).
        var duration: Double?
        /// The `SegmentTimeline`'s segments, numbered from `startNumber`.
        var timeline: [DASHSegment] = []
        /// `availabilityTimeOffset`, in seconds: how long before its end a segment can be
        /// fetched. A publisher of chunked CMAF (low-latency DASH) makes a segment available as
        /// soon as its first chunk is written, and serves it while it writes the rest.
        var availabilityTimeOffset = 0.0

        /// The most segments one representation lists here: a live window is seconds to
        /// minutes, and a manifest's repeat counts may be anything.
        static let maxSegments = 10_000
        /// The most representations read from one manifest, for the same reason.
        static let maxRepresentations = 64

        mutating func apply(_ attributes: [String: String]) {
            // Ticks per second: below one, or not a number, says nothing a segment can be timed by.
            if let value = attributes["timescale"].flatMap(Double.init), value >= 1, value.isFinite { timescale = value }
            if let value = attributes["initialization"] { initialization = value }
            if let value = attributes["media"] { media = value }
            if let value = attributes["startNumber"].flatMap(Int.init), (0...1_000_000_000_000).contains(value) { startNumber = value }
            if let value = attributes["presentationTimeOffset"].flatMap(Double.init), value.isFinite { presentationTimeOffset = value }
            if let value = attributes["duration"].flatMap(Double.init), value > 0, value.isFinite { duration = value }
            if let text = attributes["availabilityTimeOffset"] {
                // "INF": every segment of the window at once (a recorded window); not a live edge.
                if let value = Double(text), value.isFinite, value >= 0 { availabilityTimeOffset = min(value, 3600) }
            }
        }

        /// Adds the segments of one `S` element (`t`, `d`, `r`): a repeat count of −1 (until
        /// the next element or the period's end) is read as none, as the live edge is the end.
        mutating func appendTimeline(_ attributes: [String: String]) {
            guard let d = attributes["d"].flatMap(Double.init), d > 0, d.isFinite else { return }
            let repeats = min(max(0, attributes["r"].flatMap(Int.init) ?? 0), Template.maxSegments)
            var time = attributes["t"].flatMap(Double.init) ?? timeline.last.map { $0.time + $0.duration } ?? 0
            guard time.isFinite, timeline.count < Template.maxSegments else { return }
            for _ in 0...min(repeats, Template.maxSegments - timeline.count - 1) {
                timeline.append(DASHSegment(number: startNumber + timeline.count, time: time, duration: d))
                time += d
            }
        }
    }

    /// The URL of `template` with its identifiers filled in (`$RepresentationID$`, `$Number$`,
    /// `$Time$`, `$Bandwidth$`, each with an optional `%0Nd` width, and `$$`), resolved
    /// against the manifest's URL.
    func url(_ template: String, segment: DASHSegment?, manifestURL: String) -> String? {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "$") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "$") else { return nil }
            let name = rest[afterOpen..<close]
            rest = rest[rest.index(after: close)...]
            if name.isEmpty { result += "$"; continue }
            let parts = name.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
            let value: String
            switch parts[0] {
            case "RepresentationID": value = id
            case "Number": guard let segment else { return nil }; value = String(segment.number)
            case "Time":
                guard let segment, segment.time.magnitude < 9e18 else { return nil }
                value = String(Int64(segment.time))
            case "Bandwidth": value = String(bandwidth)
            default: return nil
            }
            var width = 0
            if parts.count == 2, let format = parts.last, format.hasPrefix("0"), format.hasSuffix("d") {
                width = min(Int(format.dropFirst().dropLast()) ?? 0, 20)
            }
            result += String(repeating: "0", count: max(0, width - value.count)) + value
        }
        result += rest
        return URL(string: result, relativeTo: URL(string: manifestURL))?.absoluteString
    }
}

/// One media segment: its number and its media time and duration, in ticks of its timescale.
struct DASHSegment: Sendable, Equatable {
    var number: Int
    var time: Double
    var duration: Double
}

extension DASHManifest {
    // MARK: - Representations

    /// Every representation of the first period, each with the template it inherits from its
    /// adaptation set.
    static func representations(in tags: [Tag]) -> [DASHRepresentation] {
        var result: [DASHRepresentation] = []
        var setKind = DASHRepresentation.Kind.other
        var setTemplate = DASHRepresentation.Template()
        var current: DASHRepresentation?
        /// Whether the current representation's own timeline has begun: until its first `S`,
        /// it keeps the one its adaptation set gave.
        var ownTimeline = false
        func flush() {
            if let representation = current, result.count < DASHRepresentation.Template.maxRepresentations {
                result.append(representation)
            }
            current = nil
        }
        for tag in tags {
            switch tag.name {
            case "/Period":
                flush()
                return result
            case "AdaptationSet":
                flush()
                setKind = kind(tag.attributes["contentType"] ?? tag.attributes["mimeType"] ?? "")
                setTemplate = DASHRepresentation.Template()
            case "Representation":
                flush()
                guard result.count < DASHRepresentation.Template.maxRepresentations else { return result }
                ownTimeline = false
                let mime = tag.attributes["mimeType"] ?? ""
                var kind = setKind
                if kind == .other { kind = tag.attributes["width"] != nil ? .video : self.kind(mime) }
                current = DASHRepresentation(kind: kind, id: tag.attributes["id"] ?? "",
                                             bandwidth: tag.attributes["bandwidth"].flatMap(Int.init) ?? 0,
                                             mimeType: mime, template: setTemplate)
            case "SegmentTemplate":
                if current != nil {
                    current!.template.apply(tag.attributes)
                } else {
                    setTemplate.apply(tag.attributes)
                }
            case "S":
                if current != nil {
                    if !ownTimeline { current!.template.timeline = [] }
                    ownTimeline = true
                    current!.template.appendTimeline(tag.attributes)
                } else {
                    setTemplate.appendTimeline(tag.attributes)
                }
            case "/Representation", "/AdaptationSet":
                flush()
            default:
                break
            }
        }
        flush()
        return result
    }

    private static func kind(_ type: String) -> DASHRepresentation.Kind {
        type.hasPrefix("video") ? .video : type.hasPrefix("audio") ? .audio : .other
    }
}

// MARK: - The live edge

/// What a live manifest says about one representation at one moment: the segments that can be
/// fetched now, and where the newest ends.
struct DASHLiveWindow: Sendable, Equatable {
    /// Available segments, oldest first.
    var segments: [DASHSegment]
    /// Seconds per tick.
    var unit: Double
    /// Whether the newest segment was counted from the manifest's clock (`availabilityStartTime`
    /// and now) rather than listed or written: its edge is now, however old the manifest.
    var isCounted = false
    /// The period's start in media ticks (`presentationTimeOffset`).
    var offset: Double
    /// Where the publisher is now, in seconds of the period, for a window whose newest segment is
    /// still being written (low-latency DASH): nil where the newest segment's end is the edge.
    var liveEdge: Double?

    /// `representation`'s segments available at `unixNow`: the timeline's as listed, or for a
    /// fixed duration those finished by then, counted from the manifest's
    /// `mediaPresentationDuration` (what the publisher has written) or else its
    /// `availabilityStartTime`, over `timeShiftBufferDepth` (else 30 s).
    init?(_ representation: DASHRepresentation, manifest: DASHManifest, unixNow: Double) {
        let template = representation.template
        unit = 1 / template.timescale
        offset = template.presentationTimeOffset
        if !template.timeline.isEmpty {
            segments = template.timeline
            return
        }
        guard let duration = template.duration else { return nil }
        let seconds = duration * unit
        guard seconds > 0, seconds.isFinite else { return nil }
        let written: Double
        if let total = manifest.mediaPresentationDuration {
            written = total
        } else if let start = manifest.availabilityStartTime {
            written = unixNow - start - manifest.periodStart
            isCounted = true
        } else {
            return nil
        }
        guard written.isFinite, written >= 0, (written / seconds).isFinite else { return nil }
        // A segment whose first chunks are out (`availabilityTimeOffset` before its end) is
        // available too, though still being written: its reader takes its chunks as they come.
        let early = isCounted ? min(template.availabilityTimeOffset, seconds) : 0
        let finished = Int(min((written + early) / seconds, 1e15))
        if early > 0 { liveEdge = written }
        let depth = max(seconds, manifest.timeShiftBufferDepth ?? 30)
        let first = max(0, finished - Int(min((depth / seconds).rounded(.up), Double(DASHRepresentation.Template.maxSegments))))
        segments = (first..<finished).map {
            DASHSegment(number: template.startNumber + $0, time: template.presentationTimeOffset + Double($0) * duration, duration: duration)
        }
    }

    /// Where `segment` starts, in seconds of the period.
    func start(of segment: DASHSegment) -> Double { (segment.time - offset) * unit }

    /// Where the newest segment ends, in seconds of the period (where the publisher is, for one
    /// still being written); nil with none.
    var edge: Double? {
        if let liveEdge, !segments.isEmpty { return liveEdge }
        return segments.last.map { (($0.time + $0.duration) - offset) * unit }.flatMap { $0.isFinite ? $0 : nil }
    }

    /// The segment to start at to play `behind` seconds behind the edge: the newest one that
    /// starts that far back or further (segments start with a keyframe), else the oldest.
    func start(behind: Double) -> DASHSegment? {
        guard let edge else { return nil }
        return segments.last { start(of: $0) <= edge - behind + 1e-6 } ?? segments.first
    }
}
