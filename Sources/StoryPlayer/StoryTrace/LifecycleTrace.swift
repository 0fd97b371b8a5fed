import Foundation
import StoryBase

/// Records what every player does, hands out player ids, and counts the players alive.
///
/// One trace per render; it is used from the render thread only.
public final class LifecycleTrace {
    public private(set) var events: [TraceEvent] = []
    public private(set) var peakAlive = 0
    public private(set) var alive: Set<Int> = []
    /// The most of a room's tile players (`"media": "tile"`) alive at once: a grid's or stage's
    /// tiles are decoded inside their room, so `peakAlive` leaves them out, and a grid of seven
    /// read "peak 0 players alive" without this beside it.
    public private(set) var peakTiles = 0
    private var aliveTiles: Set<Int> = []
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
                participant: String? = nil, media: String? = nil, live: LivePlaybackFigures? = nil,
                detailing: (inout TraceEvent) -> Void = { _ in }) -> Int {
        if let player { count(kind, player: player, media: media) }
        var event = TraceEvent(t: t, wall: wall, event: kind, story: story, item: item, player: player,
                               error: error, call: call, attempt: attempt, spans: spans)
        event.loaded = loaded
        event.detail = detail
        event.pictures = pictures
        event.participant = participant
        event.media = media
        event.live = live
        detailing(&event)
        events.append(event)
        return events.count - 1
    }

    /// A trace of events already recorded (a merge of shard traces), with the peak alive as
    /// recording them would have counted it.
    package convenience init(replaying events: [TraceEvent]) {
        self.init()
        for event in events {
            if let player = event.player { count(event.event, player: player, media: event.media) }
            lastID = max(lastID, event.player ?? 0)
        }
        self.events = events
    }

    /// Counts a player's play or stop: players that decode video are the ones the viewer bounds;
    /// a room's tile players are counted apart, and its audio players not here at all
    /// (`check --max-audio` counts them).
    private func count(_ kind: TraceEvent.Kind, player: Int, media: String?) {
        switch kind {
        case .play where media == nil:
            alive.insert(player)
            peakAlive = max(peakAlive, alive.count)
        case .play where media == TraceEvent.tileMedia:
            aliveTiles.insert(player)
            peakTiles = max(peakTiles, aliveTiles.count)
        case .stop:
            alive.remove(player)
            aliveTiles.remove(player)
        default:
            break
        }
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

    /// How many events have been recorded: a mark for `keepEvents(from:releasesFrom:)` and
    /// `dropReleases(from:)`.
    package var eventCount: Int { events.count }

    /// Drops the events before timeline time `t`, a shard's first frame (a shard's trace covers
    /// only its range), but for the drags and pulls let go since the frame before, recorded from
    /// event `mark` on: the step to a frame records what happened since the frame before it, at
    /// the script's time, so the shard whose first frame that is has them. Dropped as before
    /// `t`, they were lost from the merge.
    package func keepEvents(from t: Double, releasesFrom mark: Int) {
        events = events.enumerated().filter { index, event in
            event.t >= t - 1e-9 || (index >= mark && event.event == .gesture)
        }.map(\.element)
    }

    /// Drops the drags and pulls let go recorded from event `mark` on: a shard's step past its
    /// range (to learn whether the viewer finishes there) records those the next shard records.
    package func dropReleases(from mark: Int) {
        guard mark < events.count else { return }
        events = Array(events[..<mark]) + events[mark...].filter { $0.event != .gesture }
    }

    /// The whole trace as JSON Lines.
    public var jsonLines: String {
        events.map { $0.jsonLine + "\n" }.joined()
    }
}
