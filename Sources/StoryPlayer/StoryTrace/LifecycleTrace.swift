import Foundation
import StoryMedia
import StoryModel

/// Records what every player does, hands out player ids, and counts the players alive.
///
/// One trace per render; it is used from the render thread only.
public final class LifecycleTrace {
    public private(set) var events: [TraceEvent] = []
    public private(set) var peakAlive = 0
    public private(set) var alive: Set<Int> = []
    private var lastID = 0
    private let started = ContinuousClock.now

    public init() {}

    /// A player id never used before in this run.
    package func nextPlayerID() -> Int {
        lastID += 1
        return lastID
    }

    /// Wall-clock seconds since the trace began.
    public var wall: Double {
        (ContinuousClock.now - started).seconds
    }

    /// Appends an event; returns its index, for `complete`.
    @discardableResult
    package func record(_ kind: TraceEvent.Kind, t: Double, story: String, item: Int? = nil, player: Int? = nil,
                error: String? = nil, call: String? = nil, attempt: Int? = nil, spans: FirstFrameSpans? = nil,
                loaded: [String]? = nil, detail: String? = nil, pictures: Int? = nil,
                participant: String? = nil, media: String? = nil, live: LivePlaybackFigures? = nil) -> Int {
        // Players that decode video are the ones the viewer bounds; a room's audio players are
        // counted apart (`check --max-audio`).
        if kind == .play, let player, media == nil {
            alive.insert(player)
            peakAlive = max(peakAlive, alive.count)
        }
        if kind == .stop, let player { alive.remove(player) }
        var event = TraceEvent(t: t, wall: wall, event: kind, story: story, item: item, player: player,
                               error: error, call: call, attempt: attempt, spans: spans)
        event.loaded = loaded
        event.detail = detail
        event.pictures = pictures
        event.participant = participant
        event.media = media
        event.live = live
        events.append(event)
        return events.count - 1
    }

    /// A trace of events already recorded (a merge of shard traces), with the peak alive as
    /// recording them would have counted it.
    package convenience init(replaying events: [TraceEvent]) {
        self.init()
        for event in events {
            if event.event == .play, let player = event.player, event.media == nil {
                alive.insert(player)
                peakAlive = max(peakAlive, alive.count)
            }
            if event.event == .stop, let player = event.player { alive.remove(player) }
            lastID = max(lastID, event.player ?? 0)
        }
        self.events = events
    }

    /// Records a drag or pull let go.
    package func record(_ release: GestureRelease, story: String) {
        var event = TraceEvent(t: release.t, wall: wall, event: .gesture, story: story)
        event.action = release.action.rawValue
        event.outcome = release.outcome.rawValue
        event.progress = release.progress
        event.velocity = release.velocity
        events.append(event)
    }

    /// Fills in what a preload brought, for an event recorded when it was requested.
    package func complete(_ index: Int, loaded: [String], detail: String?) {
        events[index].loaded = loaded
        events[index].detail = detail
    }

    /// Keeps only the events after timeline time `t`, the moment of the frame before a shard's
    /// first (a shard's trace covers only its range). The step to a frame records what happened
    /// since the frame before it, such as a drag let go between them at the script's time, so
    /// the shard whose first frame that is records it: kept from its first frame's moment on, it
    /// was dropped, and lost from the merge when the shard before had not stepped that far.
    /// Compared as written, to the millisecond, as `ShardMerge` compares the shard before's.
    package func keepEvents(after t: Double) {
        let written = JSONText.rounded(t)
        events.removeAll { JSONText.rounded($0.t) <= written }
    }

    /// The whole trace as JSON Lines.
    public var jsonLines: String {
        events.map { $0.jsonLine + "\n" }.joined()
    }
}
