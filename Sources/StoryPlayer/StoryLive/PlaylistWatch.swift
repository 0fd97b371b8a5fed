import Foundation
import StoryMedia
import StoryModel
import Synchronization

/// Reads a live HLS playlist (or DASH manifest) beside the demuxer, a few times per segment, so the player knows
/// where the live edge is. FFmpeg's demuxer fetches segments only when the decoder needs them,
/// so the pictures' own arrival says nothing about the edge of a segmented stream; the playlist
/// does: each new segment is listed when the publisher has finished it, and may carry the
/// publisher's clock (`EXT-X-PROGRAM-DATE-TIME`). It also sees `#EXT-X-ENDLIST`, which ends
/// the item where a playlist that merely stopped changing is a stall.
///
/// One thread per playing HLS item, named `playlist #<player>`; it ends when the gate it was
/// given is stopped (the decode thread's `stop()`), and frees its connection each fetch.
package final class PlaylistWatch: Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// The longest the read before the demuxer opens may take (seconds).
    package static let firstFetchLimit = 1.0
    /// Set when the connection it watches for is gone (a reconnect starts a watch of its own).
    private let retired = Atomic<Bool>(false)

    /// The playlist as FFmpeg will read it: fetched just before the demuxer opens, so that the
    /// segment FFmpeg starts at is known (`HLSPlaylist.startSequence`). A master playlist is
    /// followed to its variant of the highest bandwidth, as FFmpeg's best video stream is.
    package static func fetchMedia(_ url: String, gate: InterruptGate, timeout: Double) -> (url: String, playlist: HLSPlaylist)? {
        fetchMediaOrHead(url, gate: gate, timeout: timeout).flatMap { $0.playlist.lists ? $0 : nil }
    }

    /// As `fetchMedia`, but also a live playlist that lists no segment yet: a broadcast about to
    /// start, whose publisher has written the playlist's head. Nil when it cannot be read.
    package static func fetchMediaOrHead(_ url: String, gate: InterruptGate, timeout: Double) -> (url: String, playlist: HLSPlaylist)? {
        guard var playlist = fetch(url, gate: gate, timeout: timeout) else { return nil }
        var mediaURL = url
        if let variant = playlist.variants.max(by: { $0.bandwidth < $1.bandwidth }),
           let resolved = resolve(variant.uri, against: url),
           var media = fetch(resolved, gate: gate, timeout: timeout) {
            media.hasAlternateAudio = playlist.hasAlternateAudio
            playlist = media
            mediaURL = resolved
        }
        return (mediaURL, playlist)
    }

    /// Whether the playlist of `source` says the broadcast has ended (`#EXT-X-ENDLIST`, in its
    /// variant of the highest bandwidth for a master playlist), read again now, from the
    /// network or from disk. false when it cannot be read: a publisher gone away has not said
    /// it ended.
    package static func saysEnded(_ source: MediaSource, gate: InterruptGate, timeout: Double) -> Bool {
        fetchMedia(source.ffmpegURL, gate: gate, timeout: timeout)?.playlist.hasEnded ?? false
    }

    /// `uri`, as a playlist at `url` names it, made whole: a local playlist's relative names
    /// are paths beside it (kept as paths: a folder name with a space is no URL). A playlist
    /// from the network may name only network URLs: a `file:` one is refused (nil), so a
    /// server can never make us read a local file, as FFmpeg's own protocol list keeps it.
    static func resolve(_ uri: String, against url: String) -> String? {
        guard let path = localPath(url) else {
            guard let resolved = URL(string: uri, relativeTo: URL(string: url))?.absoluteString,
                  !resolved.lowercased().hasPrefix("file:"), resolved.contains("://") else { return nil }
            return resolved
        }
        if uri.contains("://") || uri.lowercased().hasPrefix("file:") { return uri }
        if uri.hasPrefix("/") { return "file:" + uri }
        return "file:" + ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(uri)
    }

    /// The path of a `file:` URL: as `MediaSource.ffmpegURL` writes one (`file:/x`), or with an
    /// authority that is this machine (`file:///x`, `file://localhost/x`, as other tools write
    /// them). Nil for any other URL, and for a `file:` URL naming another host, which no path
    /// here reaches.
    static func localPath(_ url: String) -> String? {
        guard url.lowercased().hasPrefix("file:") else { return nil }
        var rest = url.dropFirst("file:".count)
        if rest.hasPrefix("//") {
            let host = rest.dropFirst(2).prefix { $0 != "/" }
            guard host.isEmpty || host.lowercased() == "localhost" else { return nil }
            rest = rest.dropFirst(2 + host.count)
        }
        return String(rest)
    }

    static func fetch(_ url: String, gate: InterruptGate, timeout: Double) -> HLSPlaylist? {
        fetchText(url, gate: gate, timeout: timeout).flatMap(HLSPlaylist.init(text:))
    }

    /// Starts watching `url`, whose first fetch was `first`, at monotonic `seenAt`; evidence goes
    /// to `edge` for time line `epoch`. The demuxer started at segment `start` when its opening
    /// said so (`DemuxerOpenings`); else where `first` predicts, which is a segment early when
    /// the publisher listed one between that fetch and the demuxer's own.
    /// A Low-Latency HLS play starts at a part `offsetInSegment` seconds into segment `start`.
    package init(url: String, first: HLSPlaylist, seenAt: Double, start known: Int? = nil, offsetInSegment: Double = 0,
                 epoch: Int, edge: LiveEdge, gate: InterruptGate, timeout: Double, name: String) {
        let start = known ?? first.startSequence() ?? 0
        let interval = min(0.25, max(0.05, (first.targetDuration ?? 1) / 4))
        let thread = Thread { [self] in
            DecoderWorkers.nameThisThread(name)
            defer { done.signal() }
            var ledger = SegmentLedger(start: start, targetDuration: first.targetDuration ?? 1, offsetInSegment: offsetInSegment)
            func publish(_ playlist: HLSPlaylist, at seen: Double, firm: Bool) {
                let evidence = ledger.add(playlist, seenAt: seen)
                edge.playlistSeen(lead: evidence.lead, programLead: evidence.programLead, firm: firm, epoch: epoch)
                if playlist.hasEnded { edge.markEnded() }
            }
            if let target = first.lowLatencyTarget {
                edge.suggest(target: target)
            } else if let duration = first.targetDuration {
                edge.suggest(target: LiveLatency.defaultTarget(kind: .hls, targetDuration: duration, presentationDelay: nil))
            }
            publish(first, at: seenAt, firm: false)
            while !first.hasEnded, gate.sleep(seconds: interval), !retired.load(ordering: .acquiring) {
                guard let playlist = PlaylistWatch.fetch(url, gate: gate, timeout: timeout) else { continue }
                publish(playlist, at: LiveEdge.now(), firm: true)
                if playlist.hasEnded { return }
            }
        }
        thread.name = name
        thread.start()
    }

    /// Starts watching a live DASH manifest at `url`: where its newest video segment ends, corrected
    /// by how old the manifest was when read (its `publishTime`), and the delay it suggests.
    /// The segments are fetched as the decoder needs them (`DASHSegmentFeed`), so without the
    /// manifest the player would take where it reads for the edge.
    /// `clockOffset`: the publisher's clock less this machine's (`DASHServerClock`).
    package init(dash url: String, clockOffset: Double = 0, edge: LiveEdge, gate: InterruptGate, timeout: Double, name: String) {
        let thread = Thread { [self] in
            DecoderWorkers.nameThisThread(name)
            defer { done.signal() }
            var newestEnd = -Double.infinity
            repeat {
                guard let manifest = PlaylistWatch.fetchText(url, gate: gate, timeout: timeout).flatMap(DASHManifest.init(text:))
                else { continue }
                let seen = LiveEdge.now()
                if let target = manifest.suggestedTarget { edge.suggest(target: target) }
                if let rates = manifest.playbackRates { edge.suggest(speeds: rates) }
                // The newest video segment's end on the period's time line, where the player
                // places its pictures (`MediaDecoder.periodStart`).
                if let window = manifest.video.flatMap({ DASHLiveWindow($0, manifest: manifest, unixNow: Date().timeIntervalSince1970 + clockOffset) }),
                   let end = window.edge {
                    // A manifest read late was written earlier: its newest segment was listed by
                    // then (bounded, for a publisher whose clock is off from this one).
                    // A `publishTime` no later than the availability start was never updated
                    // (GStreamer's dashsink writes the start in both) and says nothing of the age.
                    let published = manifest.publishTime.flatMap { time in
                        manifest.availabilityStartTime.map { time > $0 + 0.001 } ?? true ? time : nil
                    }
                    // Segments counted from the manifest's clock end now, however old the manifest.
                    let age = window.isCounted ? 0 : published.map { min(max(0, Date().timeIntervalSince1970 + clockOffset - $0), PlaylistWatch.maxManifestAge) } ?? 0
                    // A manifest whose segments end earlier than before comes from a publisher that
                    // started again: its media times are new, and so is the edge.
                    if end < newestEnd - 1 { edge.manifestRestarted() }
                    newestEnd = end
                    edge.manifestSeen(lead: end - (seen - age))
                }
                if !manifest.isDynamic { edge.markEnded() }
            } while gate.sleep(seconds: PlaylistWatch.manifestInterval) && !retired.load(ordering: .acquiring)
        }
        thread.name = name
        thread.start()
    }

    /// How often a DASH manifest is read (seconds).
    static let manifestInterval = 0.25
    /// The most a manifest's `publishTime` may say it is older than when it was read.
    static let maxManifestAge = 10.0

    /// The text at `url`: through FFmpeg's network protocols (`FeedPageStream`, which reads
    /// none but those), or from disk for a local playlist's `file:` URL. nil when it cannot be
    /// read.
    static func fetchText(_ url: String, gate: InterruptGate, timeout: Double) -> String? {
        guard !gate.isStopped else { return nil }
        if let path = localPath(url) {
            // Only the first 1 MB, as from the network: a playlist is never larger, and a path
            // that names something else (a device, a huge file) is not read whole.
            guard let file = FileHandle(forReadingAtPath: path) else { return nil }
            defer { try? file.close() }
            return (try? file.read(upToCount: 1 << 20)).map { String(decoding: $0 ?? Data(), as: UTF8.self) }
        }
        do {
            let stream = try FeedPageStream(url: url, timeout: timeout, gate: gate)
            defer { stream.close() }
            return String(decoding: try stream.readAll(limit: 1 << 20), as: UTF8.self)
        } catch {
            return nil
        }
    }

    /// Ends the watch: at once if it is waiting for its next read, else after the read under
    /// way. Waits up to `seconds` for its thread to end.
    @discardableResult
    package func retire(waitingUpTo seconds: Double) -> Bool {
        retired.store(true, ordering: .releasing)
        return done.wait(timeout: .now() + seconds) == .success
    }
}

/// A live playlist's segments as they were listed, from the one the demuxer started at: where
/// each ends in stream time (relative to that first segment's start), and when it was first seen.
struct SegmentLedger {
    let start: Int
    let targetDuration: Double
    private var next: Int
    /// The stream time where segment `next` starts.
    private var end = 0.0

    /// `offsetInSegment`: a Low-Latency HLS play that started at a part, that far into segment
    /// `start`: the stream time 0 of its first picture lies there, not at the segment's start.
    init(start: Int, targetDuration: Double, offsetInSegment: Double = 0) {
        self.start = start
        self.targetDuration = targetDuration
        next = start
        end = -offsetInSegment
    }

    /// Adds the segments new in `playlist`, seen at monotonic `seenAt`. Returns the largest lead
    /// they give (a segment's end in stream time, less when it was first listed: nothing is
    /// listed before it is finished) and the program date's lead of the newest one that has one.
    mutating func add(_ playlist: HLSPlaylist, seenAt: Double) -> (lead: Double?, programLead: Double?) {
        var lead: Double?
        var programLead: Double?
        for segment in playlist.segments where segment.sequence >= next {
            // Segments that slid out of the list between two reads count at the target duration.
            end += Double(segment.sequence - next) * targetDuration
            if let date = segment.programDate { programLead = end - date }
            end += segment.duration
            next = segment.sequence + 1
            lead = max(lead ?? -.infinity, end - seenAt)
        }
        // The parts of the segment being written (Low-Latency HLS) are listed as each is whole: a
        // bound on the edge a part's length behind it, not a segment's.
        if playlist.nextSequence == next, !playlist.trailingParts.isEmpty {
            let written = playlist.trailingParts.reduce(0) { $0 + $1.duration }
            lead = max(lead ?? -.infinity, end + written - seenAt)
        }
        return (lead, programLead)
    }
}
