import Compositor
import StoryBase
import StoryMedia
import StoryModel
import StoryTrace

/// Plays one story, one item at a time, under the seed's BroadcastStory rules:
///
/// - `play()` creates a new player (demuxer, decoder, scaler) with a new id; nothing is reused;
/// - `stop()` drops it, freeing every FFmpeg object before it returns;
/// - `play()` while playing and `stop()` while stopped change nothing, and are traced as `ignored`.
///
/// Not `StoryPlayer`: that is the name of the module a package imports (issue 62), and Swift
/// cannot tell a type from a module of the same name.
public final class StoryPlaybackController {
    public let story: Story
    public private(set) var current: ItemPlayer?
    private let trace: LifecycleTrace
    private let size: (width: Int, height: Int)
    /// The canvas's `fit`, for items that do not name their own.
    private let fit: PictureFit
    private let limits: DecodeLimits
    private let clock: StageClock?
    private let waits: Bool
    private let interruption: RenderInterruption?

    /// `playback` decides whether players wait for their decoders (virtual) or never do
    /// (realtime); `interruption` (the render's SIGINT) calls a player's wait off.
    public init(story: Story, canvas: Canvas, limits: DecodeLimits = DecodeLimits(), clock: StageClock? = nil,
                playback: PlaybackClock = .virtual, interruption: RenderInterruption? = nil, trace: LifecycleTrace) {
        self.story = story
        self.interruption = interruption
        self.clock = clock
        self.waits = playback == .virtual
        self.trace = trace
        self.size = (canvas.width, canvas.height)
        self.fit = canvas.fit
        self.limits = limits
    }

    public var isPlaying: Bool { current != nil }

    /// A room's pins as the script has set them so far (participant → pinned), handed to each new
    /// play of the room and to the one playing now.
    public var roomPins: [String: Bool] = [:] {
        didSet {
            for (participant, pinned) in roomPins where oldValue[participant] != pinned {
                pinOrder.removeAll { $0 == participant }
                if pinned { pinOrder.append(participant) }
                current?.stage?.setPinned(participant, pinned)
            }
        }
    }
    /// A room's layout and page as the script has set them so far, handed to each new play of
    /// the room and to the one playing now.
    public var roomView = RoomView() {
        didSet { if roomView != oldValue { current?.stage?.setView(roomView) } }
    }
    /// The participants the script has pinned, the latest last: of several pinned, the latest
    /// pin is large (Stream's `pinned` comparator), also in a later play of the room.
    private(set) var pinOrder: [String] = []

    /// New players open their media only to learn its length, and decode nothing (a shard's
    /// fast-forward through the frames before its range).
    public var defersDecoding = false
    /// Where deferred players find the facts of a source opened before in the render, and keep
    /// what they learn (`MediaFactsBook`); nil: each opens its source.
    package var factsBook: MediaFactsBook?

    /// Starts item `item` at timeline time `t` with a brand-new player.
    @discardableResult
    public func play(item: Int, at t: Double) -> ItemPlayer? {
        precondition(story.items.indices.contains(item), "story \(story.id) has no item \(item)")
        if let current {
            trace.record(.ignored, t: t, story: story.id, item: current.itemIndex, player: current.id, call: "play")
            return current
        }
        let id = trace.nextPlayerID()
        let isRoom = story.items[item].room != nil
        // A room is traced as its participants' players (RoomStage), not as one of its own.
        if !isRoom { trace.record(.play, t: t, story: story.id, item: item, player: id) }
        var shown = story.items[item]
        shown.source.fit = shown.source.fit ?? fit
        let player = ItemPlayer(id: id, itemIndex: item, item: shown, storyID: story.id, startedAt: t,
                                size: size, limits: limits, clock: clock, waits: waits, interruption: interruption,
                                deferred: defersDecoding,
                                factsBook: factsBook, roomPins: roomPins, pinOrder: pinOrder, roomView: roomView,
                                storyPoster: story.poster, trace: trace)
        current = player
        return player
    }

    /// Drops the current player at timeline time `t`, freeing all it holds.
    public func stop(at t: Double) {
        guard let player = current else {
            trace.record(.ignored, t: t, story: story.id, call: "stop")
            return
        }
        player.close(at: t)
        current = nil
        guard player.stage == nil && story.items[player.itemIndex].room == nil else { return }
        trace.record(.stop, t: t, story: story.id, item: player.itemIndex, player: player.id, pictures: player.pictures,
                     live: player.liveFigures) { event in
            guard let live = player.live else { return }
            event.protocolName = player.media?.deliveredBy
            event.targetMs = (live.playhead.target * 1000).rounded()
            event.jitterBufferMs = player.jitterBufferMs
        }
    }
}
