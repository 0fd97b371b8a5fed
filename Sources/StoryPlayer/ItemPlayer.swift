import Compositor

/// One play of one story item: a fresh demuxer, decoder and scaler, and a new player id.
///
/// Created by `StoryPlayer.play()` and closed by `StoryPlayer.stop()`. It decodes on demand
/// (the virtual clock): asking for the picture at a moment decodes up to that moment.
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
    private let size: (width: Int, height: Int)
    private var decoder: MediaDecoder?
    /// The newest picture with a presentation time ≤ the media time asked for, not yet converted.
    private var candidate: DecodedPicture?
    /// The first picture past the media time asked for, held back until its time comes.
    private var upcoming: DecodedPicture?
    private var shown: RGBAImage?
    private var dataEnded = false
    /// Where the stream's last picture stops being current, once the data has ended.
    private var dataEndTime: Double?
    private var frameDuration: Double = 1.0 / 30

    init(id: Int, itemIndex: Int, item: StoryItem, storyID: String, startedAt: Double,
         size: (width: Int, height: Int), limits: DecodeLimits, trace: LifecycleTrace) {
        self.id = id
        self.itemIndex = itemIndex
        self.item = item
        self.storyID = storyID
        self.startedAt = startedAt
        self.size = size
        self.trace = trace
        do {
            let decoder = try MediaDecoder(source: item.source, limits: limits)
            self.decoder = decoder
            if decoder.frameRate > 0 { frameDuration = 1 / decoder.frameRate }
            trace.record(.opened, t: startedAt, story: storyID, item: itemIndex, player: id)
        } catch {
            fail(error, at: startedAt)
        }
    }

    /// Whether the player holds FFmpeg objects right now.
    public var holdsDecoder: Bool { decoder != nil }

    /// How long the item lasts on the timeline, when that is known: a video's media duration or
    /// its `duration`, whichever is shorter; a photo's (or a failed item's) `duration`, default 5 s.
    public var length: Double? {
        switch state {
        case .failed:
            return item.duration ?? StoryItem.defaultPhotoDuration
        default:
            guard let decoder else { return item.duration }
            if decoder.isStill { return item.duration ?? StoryItem.defaultPhotoDuration }
            let media = decoder.duration.map { min($0, item.duration ?? .infinity) } ?? item.duration
            return [media, dataEndTime].compactMap { $0 }.min()
        }
    }

    /// Whether the item has played to its end by timeline time `t`.
    public func hasEnded(at t: Double) -> Bool {
        if state == .ended { return true }
        let local = t - startedAt
        if case .showing = state, decoder?.isStill == false { advance(to: local) }
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
        if state == .loading || (decoder?.isStill == false && state == .showing) {
            advance(to: t - startedAt)
        }
        if let candidate, let decoder {
            do {
                shown = try decoder.rgba(candidate, width: size.width, height: size.height)
                self.candidate = nil
                if state == .loading {
                    state = .showing
                    trace.record(.firstFrame, t: t, story: storyID, item: itemIndex, player: id)
                }
            } catch {
                fail(error, at: t)
            }
        }
        return shown
    }

    /// Frees every FFmpeg object now. Called by `stop()`; safe to repeat.
    func close() {
        candidate = nil
        upcoming = nil
        decoder?.close()
        decoder = nil
    }

    // MARK: - Decoding on demand

    /// Decodes until the next picture lies past `local` media seconds, or the data ends.
    private func advance(to local: Double) {
        guard let decoder, !dataEnded || upcoming != nil else { return }
        do {
            while true {
                if upcoming == nil {
                    if dataEnded { break }
                    guard let next = try decoder.nextPicture() else {
                        dataEnded = true
                        dataEndTime = (shownTime ?? 0) + frameDuration
                        break
                    }
                    upcoming = next
                }
                guard let next = upcoming else { break }
                // The first picture shows at once even if its timestamp is a little late.
                if next.time <= local + 1e-9 || (shown == nil && candidate == nil) {
                    candidate = next
                    shownTime = next.time
                    upcoming = nil
                    if decoder.isStill {
                        dataEnded = true
                        break
                    }
                } else {
                    break
                }
            }
        } catch {
            if shown == nil && candidate == nil {
                fail(error, at: startedAt + local)
            } else {
                // A decode error after pictures were shown ends the data, as a truncated file does.
                dataEnded = true
                dataEndTime = (shownTime ?? 0) + frameDuration
            }
        }
    }

    private var shownTime: Double?

    private func fail(_ error: MediaError, at t: Double) {
        state = .failed(error)
        close()
        trace.record(.failed, t: t, story: storyID, item: itemIndex, player: id, error: error.description)
    }
}
