import Foundation
import StoryMedia
import StoryModel

/// A live DASH source opened by this program's own segment reader: the shown representation's
/// demuxer (the video, or for a manifest of sound only its audio), the audio representation's
/// beside a video one (a separate demuxer, since DASH sends each in segments of its own), and
/// where in the period the play starts.
struct DASHOpening {
    let main: FormatContext
    /// The audio representation, opened and read on a thread of its own once started.
    let sound: DASHSound?
    let facts: Facts

    /// What the opening found, which the play keeps (`DASHLiveSource`).
    struct Facts {
        /// Where the first segment read starts, in seconds of the period: the first picture's
        /// place on the manifest's time line, against which the edge is measured.
        let periodStart: Double
        /// The publisher's clock less this machine's (`DASHServerClock`).
        let clockOffset: Double
        /// Segments are out before they are whole (`availabilityTimeOffset`): low-latency DASH.
        let isChunked: Bool
        /// The target the manifest asks for (`ServiceDescription`, else `suggestedPresentationDelay`).
        let suggestedTarget: Double?
    }
}

extension FormatContext {
    /// Opens a live DASH manifest: reads it, picks the video representation of the highest
    /// bandwidth and the first audio one (the audio one alone, as the shown stream, when the
    /// manifest lists no video), and starts each at the segment that plays `behind`
    /// seconds behind the newest (the item's `latency.target`, else the manifest's
    /// `suggestedPresentationDelay`, else 3 s). Each is read by a `DASHSegmentFeed` through a
    /// demuxer that probes what the segments are (fragmented MP4, MPEG-TS).
    static func openDASH(_ source: MediaSource, limits: DecodeLimits, gate: InterruptGate,
                         reception: SourceReception?) throws(MediaError) -> DASHOpening {
        let protocols = try permittedProtocols(source, limits: limits)
        gate.arm(seconds: limits.timeouts.open)
        defer { gate.disarm() }
        let url = source.ffmpegURL
        let manifest = try readManifest(source, limits: limits, gate: gate)
        reception?.reached(.answered)
        // A manifest of sound only (a radio station, an audio room) is read as its audio
        // representation alone, as an HLS playlist of sound only is: the play shows its poster
        // and is heard, as any live source without pictures.
        guard let shown = manifest.video ?? manifest.audio else {
            throw MediaError(.noVideoStream, "no video stream in \(source)", cause: "the manifest lists no video or audio representation")
        }
        let protocolNames = protocols.filter { ["http", "https"].contains($0) }
        let clockOffset = DASHServerClock.offset(of: manifest, manifestURL: url, protocols: protocolNames, gate: gate,
                                                 timeout: min(1, limits.timeouts.open / 4))
        let unixNow = Date().timeIntervalSince1970 + clockOffset
        guard shown.template.media != nil, let window = DASHLiveWindow(shown, manifest: manifest, unixNow: unixNow),
              let first = window.segments.first else {
            throw MediaError(.open, "cannot open \(source)",
                             cause: "the manifest lists no segments this player can read (it reads SegmentTemplate, with a SegmentTimeline or a duration)")
        }
        let behind = limits.latency.target ?? manifest.suggestedTarget
            ?? LiveLatency.defaultTarget(kind: .dash, targetDuration: nil, presentationDelay: nil)
        let start = window.start(behind: behind) ?? first
        let periodStart = window.start(of: start)
        let options = FormatContext.dashOptions
        let feed = DASHSegmentFeed(manifestURL: url, manifest: manifest, representation: shown, start: start.number,
                                   behind: behind, gate: gate, timeout: limits.timeouts.open, protocols: protocolNames,
                                   clockOffset: clockOffset)
        let format: FormatContext
        do throws(MediaError) {
            format = try FormatContext(input: SegmentInput(feed: feed), name: source.description, options: options, gate: gate)
            try format.readStreamInfo(limits: limits)
            // Open only once a media segment's bytes came (see `openLowLatencyHLS`): the
            // initialization segment alone gives the demuxer its streams.
            guard feed.mediaPieces > 0 else {
                throw feed.failure ?? MediaError(.open, "cannot open \(source)", cause: "no media segment arrived")
            }
        } catch {
            // The feed's own reason first: it gave up before the gate would have, and says why.
            throw feed.failure ?? explain(error, gate: gate, waiting: "opening \(source)", seconds: limits.timeouts.open)
        }
        // The sound, from the audio segment that holds the first picture's time, opened on a
        // thread of its own when the play decodes sound. Without it the story plays silent rather
        // than failing: the pictures are what a viewer waits for.
        let sound = shown.kind == .video
            ? dashSound(manifestURL: url, manifest: manifest, unixNow: unixNow, from: periodStart, behind: behind,
                        protocols: protocolNames, clockOffset: clockOffset)
            : nil
        return DASHOpening(main: format, sound: sound,
                           facts: DASHOpening.Facts(periodStart: periodStart, clockOffset: clockOffset,
                                                    isChunked: shown.template.availabilityTimeOffset > 0,
                                                    suggestedTarget: manifest.suggestedTarget))
    }

    /// The manifest at `source`, read under `gate` (armed by the caller).
    private static func readManifest(_ source: MediaSource, limits: DecodeLimits, gate: InterruptGate) throws(MediaError) -> DASHManifest {
        let text: String
        do {
            let stream = try FeedPageStream(url: source.ffmpegURL, timeout: limits.timeouts.open, gate: gate)
            defer { stream.close() }
            text = String(decoding: try stream.readAll(limit: 4 << 20), as: UTF8.self)
        } catch {
            throw explain(error, gate: gate, waiting: "opening \(source)", seconds: limits.timeouts.open)
        }
        guard let manifest = DASHManifest(text: text) else {
            throw MediaError(.open, "cannot open \(source)", cause: "not a DASH manifest")
        }
        return manifest
    }

    /// The sound beside the pictures: the manifest's audio representation from the segment that
    /// holds `periodStart`, the first picture's time; nil when it lists none this reader reads.
    private static func dashSound(manifestURL url: String, manifest: DASHManifest, unixNow: Double, from periodStart: Double,
                                  behind: Double, protocols: [String], clockOffset: Double) -> DASHSound? {
        guard let representation = manifest.audio, representation.template.media != nil,
              let audioWindow = DASHLiveWindow(representation, manifest: manifest, unixNow: unixNow),
              let audioStart = audioWindow.segments.last(where: { audioWindow.start(of: $0) <= periodStart + 1e-3 })
                ?? audioWindow.segments.first else { return nil }
        return DASHSound(DASHSound.Plan(manifestURL: url, manifest: manifest, representation: representation,
                                        start: audioStart.number, behind: behind, protocols: protocols,
                                        clockOffset: clockOffset))
    }

    /// How a DASH representation's demuxer reads its first segments: 0.1 s of analysis, as for
    /// any live source, within 1 MB.
    static let dashOptions = ["analyzeduration": "100000", "probesize": "1000000"]
}
