import Compositor
import Foundation
import StoryBase
import StoryMedia
import StoryModel
import StoryTrace

/// One play of one story item: a decode thread of its own (which opens the source and holds the
/// demuxer, decoder and scaler), and a new player id.
///
/// Created by `StoryPlaybackController.play()` and closed by `StoryPlaybackController.stop()`.
/// The decode thread runs a few pictures ahead into a bounded queue; the render thread shows,
/// for each moment, the picture whose presentation time is the greatest one ≤ the media time.
///
/// With the virtual clock the player waits for its thread, so which picture is shown depends only
/// on timestamps and renders are deterministic. With the realtime clock it never waits: until the
/// first picture arrives the story shows its loading state, and late pictures are dropped.
public final class ItemPlayer {
    public enum State: Sendable, Equatable {
        case loading, showing, failed(MediaError), ended
    }

    public let id: Int
    public let itemIndex: Int
    /// Timeline seconds at `play()`; the item's media time is the time since then.
    public let startedAt: Double
    /// The media time the play begins at (`joinsAt`): 0, except for a room's recorded
    /// participant made large mid-room, whose recording has run on with the room's clock.
    let mediaOffset: Double
    public internal(set) var state: State = .loading
    /// When the first picture was shown (timeline seconds), and the spans it took.
    public private(set) var firstFrameAt: Double? {
        didSet { if oldValue == nil, let t = firstFrameAt { firstFrameMediaTime = mediaTime(at: t) } }
    }
    /// The item's media time when its first picture showed (where its bar starts: `barProgress`),
    /// taken then: `mediaTime(at:)` of an earlier moment would count a hold begun since.
    private var firstFrameMediaTime: Double?
    public private(set) var spans: FirstFrameSpans?
    /// Pictures this player put on screen, each counted on the frame it first appears (the
    /// `stop` event's `pictures`). Each frame belongs to one shard, so shards' counts add up to
    /// the whole render's.
    public internal(set) var pictures = 0
    /// Pictures taken from the decode thread, shown or passed over: whether anything came.
    var received = 0
    /// The presentation time of the last picture counted in `pictures`.
    private(set) var countedPictureTime: Double?
    /// A shard's player counts only pictures newer than the media time of the frame before its
    /// range: an older one was on screen in the shard before, and is counted there.
    private var countsPicturesAfter = -Double.infinity

    package let item: StoryItem
    let storyID: String
    /// The room participant whose video this player shows; nil for a story's own item.
    let participant: String?
    /// The item index its events carry: none for a participant's player, whose events name the
    /// participant instead (a room has no items to speak of).
    var tracedItem: Int? { participant == nil ? itemIndex : nil }
    let trace: LifecycleTrace
    let waits: Bool
    /// The render's interruption (SIGINT, SIGTERM): a wait for a picture ends when it is requested,
    /// so the render stops at its next frame.
    let interruption: RenderInterruption?
    /// What a recorded item of sound only shows over its sound (`SoundOnlyStill`).
    let still: SoundOnlyStill?
    var decodeThread: DecodeThread?
    var media: MediaFacts?
    /// The newest picture with a presentation time ≤ the media time asked for. The first one
    /// past it waits at the head of the decode thread's queue until its time comes.
    var shown: (time: Double, image: RGBAImage)? {
        didSet { shownVersion &+= 1 }
    }
    /// The presentation time of the picture on screen (media seconds), nil while there is none.
    public var shownPictureTime: Double? { shown?.time }
    /// Counts every change of `shown`: a room draws its large area again only for a new one
    /// (a picture's time alone may repeat across a live stream's discontinuity).
    package private(set) var shownVersion = 0
    /// Whether `shown`'s picture is lent out for the frame being drawn (`lendPicture()`).
    var isLent = false
    var pendingSpans: FirstFrameSpans?
    var dataEnded = false
    /// When a hold paused the item, and how long earlier holds paused it in all.
    private var pausedAt: Double?
    private var pausedTotal = 0.0
    /// Where the last picture stops being current, once the data has ended.
    var dataEndTime: Double?
    /// A live item's clock, controller and figures (`ItemPlayer+Live`); nil for everything else.
    var live: LivePlayback?
    /// The live pictures the convert thread had passed over when the player closed.
    var skippedAtClose: Int?
    /// A WebRTC source's jitter buffer depth when the play closed (its thread is gone by its `stop`).
    var jitterBufferAtClose: Double?
    /// How far its decode thread decodes (`DecodeReach`): to the first picture past the last
    /// media time the render foresees this play shows (`foreseeEnd`), else to the end. The
    /// player's, so a foresight made before the thread starts (a shard's deferred player) holds.
    let reach = DecodeReach()
    /// Times the player needed a picture past its foreseen end and lifted the reach (a test's seam:
    /// the render's foresight was wrong, which costs a wait, not a picture).
    package internal(set) var reachLifts = 0
    /// Pictures its decode thread has decoded past the one on screen, so far: at a stop, those
    /// decoded for nothing (a test's seam for the render's foresight; one is what the reach
    /// allows).
    package var picturesDecodedPastShown: Int {
        guard let through = reach.decodedThrough, let shown = shown?.time, let media, media.frameDuration > 0 else { return 0 }
        return max(0, Int(((through - shown) / media.frameDuration).rounded()))
    }

    private let size: (width: Int, height: Int)
    /// Pictures fitted whole in `size` at their own shape's size (a room's large participant),
    /// instead of covering it.
    private let fitsWhole: Bool
    let limits: DecodeLimits
    /// The virtual clock waits for a live item's first picture until then (the open timeout
    /// after play); a source that sends nothing must not hold the render longer, and one that
    /// sends only sound holds it less (`soundBeforeVideoLimit`).
    let firstPictureDeadline: Date
    private let clock: StageClock?
    /// A player of a shard's fast-forward: it knows its media's length but decodes nothing until
    /// `activate(at:)`.
    public private(set) var isDeferred = false

    package init(id: Int, itemIndex: Int, item: StoryItem, storyID: String, startedAt: Double, joinsAt mediaOffset: Double = 0,
         size: (width: Int, height: Int), fitsWhole: Bool = false, limits: DecodeLimits, clock: StageClock?, waits: Bool,
         interruption: RenderInterruption? = nil, deferred: Bool = false, factsBook: MediaFactsBook? = nil, roomPins: [String: Bool] = [:], pinOrder: [String] = [],
         roomView: RoomView = RoomView(), participant: String? = nil, storyPoster: MediaSource? = nil, trace: LifecycleTrace) {
        self.id = id
        // A room's video player shows a participant of sound only by its avatar, not a still.
        still = participant == nil ? SoundOnlyStill(poster: item.poster ?? storyPoster, title: storyID) : nil
        self.participant = participant
        self.itemIndex = itemIndex
        self.item = item
        self.storyID = storyID
        self.startedAt = startedAt
        self.mediaOffset = mediaOffset
        self.trace = trace
        self.waits = waits
        self.interruption = interruption
        self.size = size
        self.fitsWhole = fitsWhole
        // The item's own latency over the storyboard's: where a live DASH item's reader starts.
        var limits = limits
        limits.latency = (item.latency ?? LiveLatency()).over(limits.latency)
        if participant != nil { limits.decodeAheadBytes = 0 }
        self.limits = limits
        self.clock = clock
        firstPictureDeadline = Date(timeIntervalSinceNow: limits.timeouts.open)
        live = ItemPlayer.livePlayback(for: item, limits: limits, waits: waits)
        if let room = item.room {
            // A room is its participants' players; the room itself decodes nothing and is not
            // traced (its stage records the players it makes).
            stage = RoomStage(room: room, storyID: storyID, at: startedAt, canvas: size, limits: limits, clock: clock,
                              waits: waits, interruption: interruption, deferred: deferred, pins: roomPins, pinOrder: pinOrder, view: roomView, trace: trace)
            state = .showing
            return
        }
        if deferred {
            openForLength(factsBook: factsBook)
            return
        }
        startDecoding()
    }

    /// A deferred player (a shard's fast-forward) opens its item for its length alone, which a
    /// whole render learns from the play it decodes: the shard's opening (`ShardCost`).
    private func openForLength(factsBook: MediaFactsBook?) {
        isDeferred = true
        let openingFrom = StageClock.threadCPUSeconds()
        do {
            if let known = item.isLive ? nil : factsBook?.facts(of: item.source) {
                media = known
            } else {
                let (decoder, facts) = try ItemPlayer.openForFacts(item, limits: limits)
                media = facts
                if !item.isLive { factsBook?.keep(facts, of: item.source) }
                clock?.addShardCost(.opening, seconds: StageClock.threadCPUSeconds() - openingFrom + decoder.takeWorkerCPUSeconds())
                decoder.close()
            }
            trace.record(.opened, t: startedAt, story: storyID, item: tracedItem, player: id, participant: participant)
            // Its first frame was shown during the fast-forward, where nothing is drawn.
            firstFrameAt = startedAt
        } catch {
            fail(error, at: startedAt)
        }
    }

    /// Starts the item's decode thread; the virtual clock opens at play time, so `opened` (or
    /// `failed`) is traced at once.
    private func startDecoding() {
        decodeThread = DecodeThread(source: item.source, isLive: item.isLive, limits: limits,
                                    width: size.width, height: size.height, fitsWhole: fitsWhole, keepsSound: participant == nil, clock: clock,
                                    name: "decode #\(id) \(storyID)", startAt: item.isLive ? 0 : mediaOffset, reach: reach,
                                    still: still)
        guard waits else { return }
        while media == nil && !isFailed, let thread = decodeThread, let event = waitForEvent(from: thread, until: nil) {
            thread.dropNext()
            handle(event, at: startedAt)
        }
    }

    deinit { close() }

    /// Starts decoding a deferred player at timeline time `t`: from the keyframe before its media
    /// time, decoding forward, so the picture shown is the one a full render shows.
    package func activate(at t: Double, previousFrame: Double) {
        stage?.activate(at: t, previousFrame: previousFrame)
        guard isDeferred else { return }
        isDeferred = false
        // With the slack `advance` shows pictures by: a picture a hair past the media time (a
        // frame time less a start time, rounded) was on screen at the frame before already.
        countsPicturesAfter = mediaTime(at: previousFrame) + PictureTime.slack
        guard !isFailed else { return }
        decodeThread = DecodeThread(source: item.source, isLive: item.isLive, limits: limits,
                                    width: size.width, height: size.height, fitsWhole: fitsWhole, keepsSound: participant == nil, clock: clock,
                                    name: "decode #\(id) \(storyID)", startAt: max(0, mediaTime(at: t)), reach: reach,
                                    still: still)
    }

    /// The room on screen, for a room's item.
    package private(set) var stage: RoomStage?

    /// Brings a room to timeline time `t` without drawing it (a shard's fast-forward).
    package func followRoom(at t: Double) {
        guard let stage else { return }
        // The room is on screen from its first frame, drawn or not, so a shard does not fade it
        // in from its poster as if it had just loaded.
        if firstFrameAt == nil { firstFrameAt = t }
        stage.follow(local: mediaTime(at: t), at: t)
    }

    /// Whether the player holds a decode thread (and so FFmpeg objects) right now.
    public var holdsDecoder: Bool { decodeThread != nil }

    /// How long the item lasts on the timeline, when that is known: a video's media duration or
    /// its `duration`, whichever is shorter; a photo's (or a failed item's) `duration`, default 5 s;
    /// a live item's `duration`, default 10 s.
    public var length: Double? {
        ItemLength.of(item, media: media, failed: isFailed, dataEnd: dataEndTime)
    }

    /// The item's own time at timeline time `t`: where it joined, plus the time since play, less
    /// the time it was held.
    public func mediaTime(at t: Double) -> Double {
        mediaOffset + (pausedAt ?? t) - startedAt - pausedTotal
    }

    /// Pauses the item (a finger holds the story): video and progress stop.
    package func pause(at t: Double) {
        guard pausedAt == nil else { return }
        pausedAt = t
    }

    /// Resumes where it was paused. A live item keeps its connection but resumes at the live
    /// edge: its media time jumps over the hold, and that skipped time is returned.
    package func resume(at t: Double) -> Double? {
        guard let pausedAt else { return nil }
        self.pausedAt = nil
        if item.isLive { return t - pausedAt }
        pausedTotal += t - pausedAt
        return nil
    }

    public var isPaused: Bool { pausedAt != nil }

    /// How far through the item it is at `t`, 0…1 (0 while its length is unknown).
    public func progress(at t: Double) -> Double {
        guard let length, length > 0 else { return 0 }
        return min(max(mediaTime(at: t) / length, 0), 1)
    }

    /// How far the overlay's bar shows the item at timeline time `t`: 0 when its first picture
    /// showed, 1 at its end. An item whose first picture came late (a live source opening, on the
    /// realtime clock) fills its bar over the time it has left, rather than jumping ahead by the
    /// time it loaded when the picture comes; one shown at once fills it as `progress`.
    public func barProgress(at t: Double) -> Double {
        guard let length, length > 0 else { return 0 }
        let shownFrom = firstFrameMediaTime ?? 0
        guard shownFrom > 0 else { return progress(at: t) }
        guard length > shownFrom else { return 1 }
        return min(max((mediaTime(at: t) - shownFrom) / (length - shownFrom), 0), 1)
    }

    /// Whether the item has played to its end by timeline time `t`.
    public func hasEnded(at t: Double) -> Bool {
        if state == .ended { return true }
        let local = mediaTime(at: t)
        if media?.isStill == false { advance(to: local, at: t) }
        if liveDataHasRunOut { return true }
        guard let length else { return false }
        guard local >= length - 1e-9 else { return false }
        if received == 0, stage == nil, !isFailed, !isDeferred {
            if item.isLive, let reception = decodeThread?.reception, reception.videoPackets > 0 {
                // Video came and none of it decoded for the item's whole time: a story that showed
                // no picture, not a source of sound only, however much sound came with it (an SRT
                // stream whose late joiner never gets its parameter sets used to end here as if it
                // had played). The error says whether a keyframe came at all: a long GOP joined
                // late fails too, since nothing of its video was seen, and says so.
                fail(MediaError(.decode, "no decodable picture", cause: ErrorText(reception.undecodableReason(
                    span: "in the item's \(ObjectReader.format(length)) s"))), at: t)
            } else if !playsSoundOnly {
                let reason = decodeThread?.reception.missingPictureReason ?? "nothing was decoded"
                fail(MediaError(.timeout, "no picture within \(String(format: "%.1f", length)) s (\(reason))"), at: t)
            }
        }
        return true
    }

    /// Whether the source is sending sound but no picture has come (a live publisher without
    /// video, or one whose first keyframe is still to come): the story is playing, so its
    /// loading ring goes off.
    public var playsSoundOnly: Bool {
        received == 0 && (decodeThread?.reception.audioPackets ?? 0) > 0
    }

    /// Records the end of the item (the viewer moves on; the last picture stays on screen).
    package func markEnded(at t: Double) {
        guard state != .ended, !isFailed else { return }
        state = .ended
        guard stage == nil else { return }
        trace.record(.ended, t: t, story: storyID, item: tracedItem, player: id, participant: participant)
    }

    public var isFailed: Bool {
        if case .failed = state { return true }
        return false
    }

    /// The picture to show at timeline time `t`: the decoded frame whose presentation time is the
    /// greatest one ≤ the media time, or nil while there is none (loading, or failed).
    public func picture(at t: Double) -> RGBAImage? {
        guard !isFailed else { return nil }
        if let stage {
            pictures += 1
            received += 1
            if firstFrameAt == nil { firstFrameAt = t }
            return stage.picture(local: mediaTime(at: t), at: t)
        }
        advance(to: mediaTime(at: t), at: t)
        guard let shown else { return nil }
        if shown.time != countedPictureTime, shown.time > countsPicturesAfter {
            countedPictureTime = shown.time
            pictures += 1
        }
        if live != nil { recordLiveOffset(of: shown.time, at: t) }
        // A shard's player activated mid-item had its first frame in the fast-forward, but shows
        // its first picture here: it is showing from now on either way.
        if state == .loading { state = .showing }
        if firstFrameAt == nil {
            firstFrameAt = t
            spans = pendingSpans
            // Over sound only, the first picture is the still the sound plays under: said so.
            trace.record(.firstFrame, t: t, story: storyID, item: tracedItem, player: id, spans: pendingSpans,
                         detail: media?.soundOnlyPicture?.detail, participant: participant)
        }
        return shown.image
    }

    /// Stops the decode thread; it frees every FFmpeg object. Called by `stop()`; safe to repeat.
    package func close(at t: Double? = nil) {
        stage?.close(at: t)
        stage = nil
        if let decodeThread {
            skippedAtClose = decodeThread.skipped
            jitterBufferAtClose = decodeThread.jitterBufferMs
        }
        decodeThread?.stop()
        decodeThread = nil
        audio?.close()
        audio = nil
    }

    // MARK: - Sound

    private var audio: ItemAudio?
    private var audioUnavailable = false

    /// The item's sound for `count` samples at 48 kHz from timeline time `t` (interleaved
    /// stereo), or nil when it is silent: paused, failed, a photo, or no audio track. A file's
    /// audio decoder is opened on first use and belongs to this play; a live stream's sound is
    /// decoded by its decode thread and read later, at the live clock's position and speed.
    package func sound(at t: Double, count: Int) -> ItemSound? {
        if let stage { return isPaused ? nil : .samples(stage.sound(local: mediaTime(at: t), count: count)) }
        guard !isFailed, !isPaused, media?.isStill != true else { return nil }
        if item.isLive { return liveSound(at: mediaTime(at: t)).map { .live($0) } }
        guard !audioUnavailable else { return nil }
        if audio == nil {
            do {
                audio = try ItemAudio(source: item.source, limits: limits)
            } catch {
                audioUnavailable = true
                return nil
            }
        }
        // On the container's clock, as QuickTime and browsers play it: the sound that goes with
        // a picture is the sound at the picture's timestamp, whichever stream started first.
        let offset = media?.soundOffset ?? 0
        return audio.map { .samples($0.samples(from: mediaTime(at: t) + offset, count: count)) }
    }
}
