import Foundation
import StoryMedia

/// What a live DASH manifest (MPD) says about its live edge: where its newest video segment ends,
/// when the manifest was written, and the delay it suggests players keep.
///
/// Read with a small tag scanner rather than an XML library: only a handful of attributes of a
/// few elements matter, and a manifest the scanner cannot follow leaves the offset estimated
/// from the pictures, not the story failed. Pure, so it is tested on manifests as ffmpeg's dash
/// muxer and GStreamer's dashsink write them.
struct DASHManifest: Sendable, Equatable {
    static func == (a: DASHManifest, b: DASHManifest) -> Bool {
        a.isDynamic == b.isDynamic && a.presentationDelay == b.presentationDelay && a.publishTime == b.publishTime
            && a.lastSegmentEnd == b.lastSegmentEnd && a.availabilityStartTime == b.availabilityStartTime
            && a.mediaPresentationDuration == b.mediaPresentationDuration && a.timeShiftBufferDepth == b.timeShiftBufferDepth
            && a.periodStart == b.periodStart && a.representations == b.representations && a.latencyTarget == b.latencyTarget
            && a.playbackRates == b.playbackRates && a.utcTiming?.scheme == b.utcTiming?.scheme && a.utcTiming?.value == b.utcTiming?.value
    }

    /// `type="dynamic"`: a live presentation.
    var isDynamic = false
    /// `suggestedPresentationDelay`, in seconds.
    var presentationDelay: Double?
    /// `publishTime`, in seconds since 1970.
    var publishTime: Double?
    /// Where the last segment of the first video representation's `SegmentTimeline` ends, in
    /// seconds of its media time (the timestamps its segments carry); nil without a timeline.
    var lastSegmentEnd: Double?
    /// `availabilityStartTime`, in seconds since 1970.
    var availabilityStartTime: Double?
    /// `mediaPresentationDuration`, in seconds: in a live manifest that has it (GStreamer's), how
    /// much the publisher has written.
    var mediaPresentationDuration: Double?
    /// `timeShiftBufferDepth`, in seconds: how long a segment stays listed.
    var timeShiftBufferDepth: Double?
    /// The first period's `start`, in seconds.
    var periodStart = 0.0
    /// The first period's representations (`DASHManifest+Representations`).
    var representations: [DASHRepresentation] = []

    // MARK: Low-latency DASH

    /// `ServiceDescription`'s `Latency@target`, in seconds: the offset from the edge the
    /// publisher asks players to keep (dash.js's live delay).
    var latencyTarget: Double?
    /// `ServiceDescription`'s `PlaybackRate@min` and `@max`: how far a player may change its
    /// speed to keep that target.
    var playbackRates: ClosedRange<Double>?
    /// The offset from the edge the publisher asks players to keep: `ServiceDescription`'s
    /// latency target, else `suggestedPresentationDelay`.
    var suggestedTarget: Double? {
        // Bounded as a storyboard's target is: the manifest's number becomes the player's target
        // and the trace's `target_ms`.
        (latencyTarget ?? presentationDelay).flatMap { $0.isFinite && $0 >= 0 && $0 <= 600 ? $0 : nil }
    }
    /// `UTCTiming`: the clock the manifest's times are on (scheme and value).
    var utcTiming: (scheme: String, value: String)?

    /// Reads manifest text; nil when it is not an MPD.
    init?(text: String) {
        let tags = DASHManifest.tags(in: text)
        guard let root = tags.first(where: { $0.name == "MPD" }) else { return nil }
        isDynamic = root.attributes["type"] == "dynamic"
        presentationDelay = root.attributes["suggestedPresentationDelay"].flatMap(DASHManifest.seconds(iso8601:))
        publishTime = root.attributes["publishTime"].flatMap(DASHManifest.date)
        availabilityStartTime = root.attributes["availabilityStartTime"].flatMap(DASHManifest.date)
        mediaPresentationDuration = root.attributes["mediaPresentationDuration"].flatMap(DASHManifest.seconds(iso8601:))
        timeShiftBufferDepth = root.attributes["timeShiftBufferDepth"].flatMap(DASHManifest.seconds(iso8601:))
        periodStart = tags.first(where: { $0.name == "Period" })?.attributes["start"].flatMap(DASHManifest.seconds(iso8601:)) ?? 0
        representations = DASHManifest.representations(in: tags)
        if let latency = tags.first(where: { $0.name == "Latency" }),
           let target = latency.attributes["target"].flatMap(Double.init), target.isFinite, (0...600_000).contains(target) {
            latencyTarget = target / 1000
        }
        if let rates = tags.first(where: { $0.name == "PlaybackRate" }),
           let low = rates.attributes["min"].flatMap(Double.init), let high = rates.attributes["max"].flatMap(Double.init),
           low.isFinite, high.isFinite, low > 0, low <= 1, high >= 1, high <= 2 {
            playbackRates = low...high
        }
        // The first timing source this reads, of those listed in the publisher's order of preference.
        if let timing = tags.first(where: { $0.name == "UTCTiming" && DASHServerClock.bodySchemes.contains($0.attributes["schemeIdUri"] ?? "") }),
           let scheme = timing.attributes["schemeIdUri"], let value = timing.attributes["value"] {
            utcTiming = (scheme, value)
        }
        var inVideo = false
        var timescale = 1.0
        var end: Double?
        var lastStart: Double?
        for tag in tags {
            switch tag.name {
            case "AdaptationSet":
                // Only the first video adaptation set's timeline: FFmpeg shows the best video stream.
                if end != nil { break }
                let type = tag.attributes["contentType"] ?? tag.attributes["mimeType"] ?? ""
                inVideo = type.hasPrefix("video")
            case "Representation" where !inVideo && end == nil:
                inVideo = (tag.attributes["mimeType"] ?? "").hasPrefix("video") || tag.attributes["width"] != nil
            case "SegmentTemplate" where inVideo && end == nil:
                timescale = tag.attributes["timescale"].flatMap(Double.init) ?? 1
            case "S" where inVideo:
                guard let duration = tag.attributes["d"].flatMap(Double.init), timescale > 0 else { break }
                let repeats = max(0, tag.attributes["r"].flatMap(Double.init) ?? 0)
                let start = tag.attributes["t"].flatMap(Double.init) ?? (lastStart.map { _ in (end ?? 0) * timescale } ?? 0)
                lastStart = start
                end = (start + duration * (repeats + 1)) / timescale
            case "/AdaptationSet" where end != nil:
                inVideo = false
            default:
                break
            }
        }
        // A manifest's numbers may be anything: an end that is not a number says nothing.
        lastSegmentEnd = end.flatMap { $0.isFinite ? $0 : nil }
    }

    // MARK: - Scanning

    struct Tag {
        let name: String
        let attributes: [String: String]
    }

    /// Every start and end tag in order, with its attributes (end tags named "/Name"). One pass
    /// over the bytes, whatever they are: a manifest comes from the network, and its watch
    /// cannot be interrupted while it scans.
    static func tags(in text: String) -> [Tag] {
        let bytes = Array(text.utf8)
        var tags: [Tag] = []
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "<") else { i += 1; continue }
            var end = i + 1
            while end < bytes.count && bytes[end] != UInt8(ascii: ">") { end += 1 }
            guard end < bytes.count else { break }
            if let tag = tag(bytes[(i + 1)..<end]) { tags.append(tag) }
            i = end + 1
        }
        return tags
    }

    /// A tag's name and its `name="value"` attributes; nil for declarations and comments.
    private static func tag(_ body: ArraySlice<UInt8>) -> Tag? {
        guard let first = body.first, first != UInt8(ascii: "?"), first != UInt8(ascii: "!") else { return nil }
        func isNameByte(_ byte: UInt8) -> Bool {
            byte > 0x20 && byte != UInt8(ascii: "=") && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "/") && byte != UInt8(ascii: ">")
        }
        var i = body.startIndex
        if body[i] == UInt8(ascii: "/") { i += 1 }
        while i < body.endIndex && isNameByte(body[i]) { i += 1 }
        let name = String(decoding: body[body.startIndex..<i], as: UTF8.self)
        var attributes: [String: String] = [:]
        while i < body.endIndex {
            guard isNameByte(body[i]) else { i += 1; continue }
            let nameStart = i
            while i < body.endIndex && isNameByte(body[i]) { i += 1 }
            let key = String(decoding: body[nameStart..<i], as: UTF8.self)
            while i < body.endIndex && body[i] <= 0x20 { i += 1 }
            guard i < body.endIndex, body[i] == UInt8(ascii: "=") else { continue }
            i += 1
            while i < body.endIndex && body[i] <= 0x20 { i += 1 }
            guard i < body.endIndex, body[i] == UInt8(ascii: "\"") else { continue }
            i += 1
            let valueStart = i
            while i < body.endIndex && body[i] != UInt8(ascii: "\"") { i += 1 }
            attributes[key] = String(decoding: body[valueStart..<i], as: UTF8.self)
            i += 1
        }
        let local = name.split(separator: ":").last.map(String.init) ?? name
        return Tag(name: name.hasPrefix("/") && !local.hasPrefix("/") ? "/" + local : local, attributes: attributes)
    }

    /// Seconds of an ISO 8601 duration (`PT1S`, `P0Y0M0DT0H0M2.0S`); nil when it is not one.
    static func seconds(iso8601 text: String) -> Double? {
        guard let match = text.wholeMatch(of: /P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?/)
        else { return nil }
        let parts = [match.output.1, match.output.2, match.output.3, match.output.4, match.output.5, match.output.6]
        let unit: [Double] = [365 * 86400, 30 * 86400, 86400, 3600, 60, 1]
        return zip(parts, unit).reduce(0) { sum, pair in sum + (pair.0.flatMap { Double($0) } ?? 0) * pair.1 }
    }

    /// Seconds since 1970 of an `xs:dateTime` in UTC (`2026-11-25T14:44:31.171Z`).
    static func date(_ text: String) -> Double? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = text.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter.date(from: text)?.timeIntervalSince1970
    }
}
