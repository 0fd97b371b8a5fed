import Compositor

/// One play of one story item: a fresh demuxer, decoder and scaler on a decode thread of its
/// own, and a new player id.
///
/// Created by `StoryPlayer.play()` and closed by `StoryPlayer.stop()`. The decode thread runs a
/// few pictures ahead into a bounded queue; the render thread picks, for each moment, the picture
/// whose presentation time is the greatest one ≤ the media time. Which picture is shown depends
/// only on timestamps, never on thread timing, so renders are deterministic.
public final class ItemPlayer {
    public enum State: Sendable, Equatable {
        case loading, showing, failed(MediaError), ended
    }

    public let id: Int
    public let itemIndex: Int
    /// Timeline seconds at `play()`; the item's media time is the time since then.
    public let startedAt: Double
    public private(set) var state: State = .loading

    private let item: StoryItem
    private let storyID: String
    private let trace: LifecycleTrace
    private var decodeThread: DecodeThread?
    private let media: MediaFacts?
    /// The newest picture with a presentation time ≤ the media time asked for.
    private var shown: (time: Double, image: RGBAImage)?
    /// The first picture past the media time asked for, held back until its time comes.
    private var upcoming: (time: Double, image: RGBAImage)?
    private var dataEnded = false
    /// Where the last picture stops being current, once the data has ended.
    private var dataEndTime: Double?
    private var announcedFirstFrame = false

    /// What the player learned when it opened the media.
    struct MediaFacts {
        let isStill: Bool
        let duration: Double?
        let frameDuration: Double
    }

    init(id: Int, itemIndex: Int, item: StoryItem, storyID: String, startedAt: Double,
         size: (width: Int, height: Int), limits: DecodeLimits, clock: StageClock?, trace: LifecycleTrace) {
        self.id = id
        self.itemIndex = itemIndex
        self.item = item
        self.storyID = storyID
        self.startedAt = startedAt
        self.trace = trace
        do {
            let decoder = try MediaDecoder(source: item.source, limits: limits)
            media = MediaFacts(isStill: decoder.isStill, duration: decoder.duration,
                               frameDuration: decoder.frameRate > 0 ? 1 / decoder.frameRate : 1.0 / 30)
            trace.record(.opened, t: startedAt, story: storyID, item: itemIndex, player: id)
            decodeThread = DecodeThread(decoder: decoder, width: size.width, height: size.height,
                                        capacity: limits.queuedPictures, clock: clock, name: "decode \(storyID)#\(id)")
        } catch {
            media = nil
            fail(error, at: startedAt)
        }
    }

    deinit { close() }

    /// Whether the player holds FFmpeg objects (and a decode thread) right now.
    public var holdsDecoder: Bool { decodeThread != nil }

    /// How long the item lasts on the timeline, when that is known: a video's media duration or
    /// its `duration`, whichever is shorter; a photo's (or a failed item's) `duration`, default 5 s.
    public var length: Double? {
        if isFailed { return item.duration ?? StoryItem.defaultPhotoDuration }
        guard let media else { return item.duration }
        if media.isStill { return item.duration ?? StoryItem.defaultPhotoDuration }
        let declared = media.duration.map { min($0, item.duration ?? .infinity) } ?? item.duration
        return [declared, dataEndTime].compactMap { $0 }.min()
    }

    /// Whether the item has played to its end by timeline time `t`.
    public func hasEnded(at t: Double) -> Bool {
        if state == .ended { return true }
        let local = t - startedAt
        if media?.isStill == false { advance(to: local) }
        guard let length else { return false }
        return local >= length - 1e-9
    }

    /// Records the end of the item (the viewer moves on; the last picture stays on screen).
    func markEnded(at t: Double) {
        guard state != .ended, !isFailed else { return }
        state = .ended
        trace.record(.ended, t: t, story: storyID, item: itemIndex, player: id)
    }

    public var isFailed: Bool {
        if case .failed = state { return true }
        return false
    }

    /// The picture to show at timeline time `t`: the decoded frame whose presentation time is the
    /// greatest one ≤ the media time, or nil while there is none (failed items have none).
    public func picture(at t: Double) -> RGBAImage? {
        guard !isFailed else { return nil }
        advance(to: t - startedAt)
        guard let shown else { return nil }
        if !announcedFirstFrame {
            announcedFirstFrame = true
            if state == .loading { state = .showing }
            trace.record(.firstFrame, t: t, story: storyID, item: itemIndex, player: id)
        }
        return shown.image
    }

    /// Stops the decode thread and frees every FFmpeg object now. Called by `stop()`; safe to repeat.
    func close() {
        decodeThread?.stop()
        decodeThread = nil
        upcoming = nil
    }

    // MARK: - Following the decode thread

    /// Takes pictures until the next one lies past `local` media seconds, or the data ends.
    private func advance(to local: Double) {
        guard let decodeThread else { return }
        while true {
            if upcoming == nil {
                if dataEnded { return }
                switch decodeThread.next() {
                case .picture(let time, let image):
                    upcoming = (time, image)
                case .end:
                    endOfData()
                    return
                case .failed(let error):
                    if shown == nil {
                        fail(error, at: startedAt + local)
                    } else {
                        // A decode error after pictures were shown ends the data, as a truncated file does.
                        endOfData()
                    }
                    return
                }
            }
            guard let next = upcoming else { return }
            // The first picture shows at once even if its timestamp is a little late.
            guard next.time <= local + 1e-9 || shown == nil else { return }
            shown = next
            upcoming = nil
        }
    }

    private func endOfData() {
        dataEnded = true
        dataEndTime = (shown?.time ?? 0) + (media?.frameDuration ?? 0)
    }

    private func fail(_ error: MediaError, at t: Double) {
        state = .failed(error)
        close()
        trace.record(.failed, t: t, story: storyID, item: itemIndex, player: id, error: error.description)
    }
}
