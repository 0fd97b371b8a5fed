import Foundation
import StoryBase
import StoryModel

/// One line of `lifecycle.jsonl`: something a player did, or a call it ignored.
public struct TraceEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case play, opened, firstFrame, ended, failed, stop, ignored, reconnect, preload
        /// A drag or pull let go (not a player event): `action`, `outcome`, `progress`, `velocity`.
        case gesture
        /// A room's new dominant speaker (not a player event): `participant`.
        case speaker
        /// A live stream's timestamps jumped; the player's clock starts again (`detail`).
        case discontinuity
        /// A live stream's pictures are released on the cadence its timestamps jitter around
        /// (`fps`, `jitter_ms`), or no longer are (`detail` says why).
        case cadence
        /// A room's layout decided who is where (not a player event): `layout`, `page`, `tiles`
        /// (the participants on the page shown, tile by tile), `moved` (those whose tile changed
        /// though they stayed) and `detail` (why).
        case layout
        /// A recording's output (not a player event): `output` ("hls", "segments" or the push's
        /// URL) started, was lost (`error`), or is back.
        case outputStarted = "output_started", outputLost = "output_lost", outputBack = "output_back"
        /// A recording's segment is whole: `output`, `file`, `duration` (seconds), `bytes`.
        case segmentClosed = "segment_closed"
        /// A push dropped what it could not send in time: `output`, `ms` of video.
        case pushDropped = "push_dropped"

        /// Whether it is a recording's output event, not a player's.
        public var isOutputEvent: Bool {
            [.outputStarted, .outputLost, .outputBack, .segmentClosed, .pushDropped].contains(self)
        }
    }

    /// Timeline seconds.
    public var t: Double
    /// Wall-clock seconds since the render started.
    public var wall: Double
    public var event: Kind
    public var story: String
    public var item: Int?
    public var player: Int?
    /// FFmpeg's message, on `failed`.
    public var error: String?
    /// `play` or `stop`, on `ignored`.
    public var call: String?
    /// The try number, on `reconnect`.
    public var attempt: Int?
    /// Pictures the player delivered, on `stop`: 0 for a story left while it was still loading.
    public var pictures: Int?
    /// The room participant a player plays, or who became the dominant speaker (`speaker`).
    public var participant: String?
    /// "audio" for a room's audio-only players; nil for players that decode video.
    public var media: String?
    /// Time to first frame, on `firstFrame`.
    public var spans: FirstFrameSpans?
    /// What a `preload` brought in ("poster", "probe"), and the probe's findings.
    public var loaded: [String]?
    public var detail: String?
    /// On `gesture`: "drag" or "pull".
    public var action: String?
    /// On `gesture`: "finish" or "cancel".
    public var outcome: String?
    /// On `gesture`: how far the transition had gone, 0…1.
    public var progress: Double?
    /// On `gesture`: the finger's velocity in px/s at 720 wide (towards the next story for a
    /// drag, downwards for a pull).
    public var velocity: Double?
    /// On a live player's `stop`: `live_offset_ms`, `live_offset_from`, `rebuffers`, `dropped`.
    public var live: LivePlaybackFigures?
    /// On the `reconnect` that says a live source is back: how long no picture came (ms).
    public var gapMs: Double?
    /// On the `reconnect` that says a live source is back: how far behind its live edge the
    /// first picture after the return was shown (ms).
    public var offsetMs: Double?
    /// On `cadence`: the cadence's pictures a second.
    public var fps: Double?
    /// On `cadence`: the largest distance of a picture's timestamp from the cadence (ms).
    public var jitterMs: Double?
    /// On a live player's `opened` and `stop`: how its source is delivered ("ll-hls", "hls",
    /// "dash", "ll-dash", "rtmp", "srt", "whep", …).
    public var protocolName: String?
    /// On a live player's `opened` and `stop`: the offset from the live edge its controller
    /// steers towards (ms), at the start and at the end (rebuffers raise it).
    public var targetMs: Double?
    /// On a WebRTC (WHEP) player's `stop`: how much its jitter buffer held (ms).
    public var jitterBufferMs: Double?
    /// On a recording's output events: which output ("hls", "segments", the push's URL).
    public var output: String?
    /// On `segment_closed`: the file, its length in seconds and its size.
    public var file: String?
    public var duration: Double?
    public var bytes: Int?
    /// On `push_dropped`: the milliseconds of video dropped.
    public var ms: Double?
    /// The `media` of a room tile's player: a grid's or stage's participant, or a screen share's
    /// picture-in-picture camera, decoded at its tile's size.
    public static let tileMedia = "tile"

    /// A `layout` event's layout (`spotlight`, `grid`, `stage`, `presentation`).
    public var layout: String?
    /// A `layout` event's page shown, from 1.
    public var page: Int?
    /// A `layout` event's participants on the page shown, tile by tile.
    public var tiles: [String]?
    /// A `layout` event's participants who changed tile though they stayed: one tile move each
    /// exchange (the speaker into a page-1 tile, the one there into the speaker's).
    public var moved: [String]?

    public init(t: Double, wall: Double, event: Kind, story: String, item: Int? = nil, player: Int? = nil,
                error: String? = nil, call: String? = nil, attempt: Int? = nil, spans: FirstFrameSpans? = nil) {
        self.attempt = attempt
        self.spans = spans
        self.t = t
        self.wall = wall
        self.event = event
        self.story = story
        self.item = item
        self.player = player
        self.error = error
        self.call = call
    }

    /// The event as one JSON line, keys in a fixed order so traces diff cleanly.
    public var jsonLine: String {
        var fields = ["\"t\": \(JSONText.number(t))", "\"wall\": \(JSONText.number(wall))",
                      "\"event\": \(JSONText.string(event.rawValue))", "\"story\": \(JSONText.string(story))"]
        if let item { fields.append("\"item\": \(item)") }
        if let player { fields.append("\"player\": \(player)") }
        if let participant { fields.append("\"participant\": \(JSONText.string(participant))") }
        if let media { fields.append("\"media\": \(JSONText.string(media))") }
        if let call { fields.append("\"call\": \(JSONText.string(call))") }
        if let attempt { fields.append("\"attempt\": \(attempt)") }
        if let pictures { fields.append("\"pictures\": \(pictures)") }
        if let loaded { fields.append("\"loaded\": [\(loaded.map(JSONText.string).joined(separator: ", "))]") }
        if let layout { fields.append("\"layout\": \(JSONText.string(layout))") }
        if let page { fields.append("\"page\": \(page)") }
        if let tiles { fields.append("\"tiles\": [\(tiles.map(JSONText.string).joined(separator: ", "))]") }
        if let moved { fields.append("\"moved\": [\(moved.map(JSONText.string).joined(separator: ", "))]") }
        if let detail { fields.append("\"detail\": \(JSONText.string(detail))") }
        if let action { fields.append("\"action\": \(JSONText.string(action))") }
        if let outcome { fields.append("\"outcome\": \(JSONText.string(outcome))") }
        if let progress { fields.append("\"progress\": \(JSONText.number(progress))") }
        if let velocity { fields.append("\"velocity\": \(JSONText.number(velocity))") }
        if let gapMs { fields.append("\"gap_ms\": \(JSONText.number(gapMs))") }
        if let offsetMs { fields.append("\"offset_ms\": \(JSONText.number(offsetMs))") }
        if let fps { fields.append("\"fps\": \(JSONText.number(fps))") }
        if let jitterMs { fields.append("\"jitter_ms\": \(JSONText.number(jitterMs))") }
        if let protocolName { fields.append("\"protocol\": \(JSONText.string(protocolName))") }
        // Only what reads back (`init(jsonLine:)`): a source's nonsense never makes the trace unreadable.
        if let targetMs, targetMs.isFinite, targetMs >= 0 { fields.append("\"target_ms\": \(JSONText.number(targetMs))") }
        if let jitterBufferMs, jitterBufferMs.isFinite, jitterBufferMs >= 0 {
            fields.append("\"jitter_buffer_ms\": \(JSONText.number(jitterBufferMs))")
        }
        if let output { fields.append("\"output\": \(JSONText.string(output))") }
        if let file { fields.append("\"file\": \(JSONText.string(file))") }
        if let duration, duration.isFinite, duration >= 0 { fields.append("\"duration\": \(JSONText.number(duration))") }
        if let bytes { fields.append("\"bytes\": \(bytes)") }
        if let ms, ms.isFinite, ms >= 0 { fields.append("\"ms\": \(JSONText.number(ms))") }
        if let spans {
            fields.append("\"open_ms\": \(JSONText.number(spans.openMs))")
            fields.append("\"first_packet_ms\": \(JSONText.number(spans.firstPacketMs))")
            fields.append("\"first_frame_ms\": \(JSONText.number(spans.firstFrameMs))")
        }
        if let live {
            if let offset = live.offsetMs {
                fields.append("\"live_offset_ms\": {\"p50\": \(JSONText.number(offset.p50)), \"p95\": \(JSONText.number(offset.p95)), \"max\": \(JSONText.number(offset.max))}")
            }
            if let from = live.offsetFrom { fields.append("\"live_offset_from\": \(JSONText.string(from))") }
            fields.append("\"rebuffers\": \(live.rebuffers)")
            fields.append("\"dropped\": \(live.dropped)")
            if !live.series.isEmpty { fields.append("\"live_offset_series\": \(OffsetSample.json(live.series))") }
        }
        if let error { fields.append("\"error\": \(JSONText.string(error))") }
        return "{" + fields.joined(separator: ", ") + "}"
    }
}
