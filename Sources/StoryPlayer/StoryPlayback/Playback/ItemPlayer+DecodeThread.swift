import Compositor
import Foundation
import StoryMedia

extension ItemPlayer {
    // MARK: - Following the decode thread

    /// Takes events until the next picture lies past `local` media seconds, or the data ends.
    /// With the realtime clock it takes only what has arrived.
    func advance(to local: Double, at t: Double) {
        precondition(!isLent, "the shown picture is still lent from the last frame")
        if live != nil { return advanceLive(to: local, at: t) }
        if !PictureTime.isShown(local, by: reach.mediaTime) { liftReach() }
        while let thread = decodeThread, !dataEnded {
            // A picture shown ahead of its time (a play's first, when it starts between two) is
            // the one due until its time comes: no picture after it can be due sooner, so the
            // next is not waited for. It may not be decoded yet: a play whose foreseen end
            // (`DecodeReach`) lies before its first picture decodes that one picture only, and
            // waiting for the next hung a shard that started in such a play, for good.
            if let current = shown, !PictureTime.isShown(current.time, by: local) { return }
            guard let event = nextEvent(from: thread) else { return }
            // The first picture shows at once even if its timestamp is a little late; with the
            // realtime clock, pictures that are already late are passed over for newer ones.
            if case .picture(let time, _, _) = event, !PictureTime.isShown(time, by: local), shown != nil { return }
            if case .picture = event, let old = shown {
                // Let go of the old picture before the thread wakes, so its storage is free to reuse.
                shown = nil
                thread.recycle(old.image)
            }
            thread.dropNext()
            handle(event, at: t)
        }
    }

    /// Foresees the play's end (`StoryRenderer.foreseePlayEnds`): it shows no media time past
    /// `mediaTime`, so its decode thread stops after the first picture past it. The latest
    /// foresight holds (it is made from a later viewer). A recorded video's only: a live
    /// source, a still and a room decode as they do.
    package func foreseeEnd(showingUpTo mediaTime: Double) {
        guard !item.isLive, stage == nil else { return }
        reach.limit(to: mediaTime)
    }

    /// The player needs a picture past what was foreseen: its thread decodes on to the end.
    private func liftReach() {
        reachLifts += 1
        reach.lift()
    }

    /// The thread's next event: with the realtime clock only what has arrived; with the virtual
    /// clock, waiting for it, but never without a deadline for a live source, whose pictures
    /// come when the network brings them (the first within the open timeout, each next one
    /// within the read timeout, after which the thread reconnects or fails).
    func nextEvent(from thread: DecodeThread) -> DecodedEvent? {
        guard waits else { return thread.peekNow() }
        // A remote file's read may stall too (within its read timeout): that wait is called off
        // by a signal as a live one's is. A local file's event comes at once either way.
        guard item.isLive else { return waitForEvent(from: thread, until: nil) }
        guard received == 0 else { return waitForEvent(from: thread, until: Date(timeIntervalSinceNow: limits.timeouts.read)) }
        // The first picture: waited for until the open timeout, unless the source shows first
        // that it sends sound and no video (a radio stream), whose story then starts as soon as
        // it is heard instead of after the whole timeout.
        while true {
            if let event = thread.peekNow() { return event }
            if sendsSoundOnly(thread) { return nil }
            let deadline = firstPictureWait(thread)
            let slice = min(deadline, Date(timeIntervalSinceNow: ItemPlayer.soundOnlyLook))
            if let event = waitForEvent(from: thread, until: slice) { return event }
            if slice >= deadline || interruption?.requested != nil { return nil }
        }
    }

    /// Until when a live item's first picture is waited for: the open timeout after play, or
    /// for video that came later (a source that sent only sound at first), after its first
    /// packet. Past it, video that has come and not decoded fails the item.
    func firstPictureWait(_ thread: DecodeThread) -> Date {
        guard let firstPacket = thread.reception.firstVideoPacketAt else { return firstPictureDeadline }
        return max(firstPictureDeadline, firstPacket.addingTimeInterval(limits.timeouts.open))
    }

    /// How often the first picture's wait looks at whether the source sends sound only.
    static let soundOnlyLook = 0.05

    /// Sound a source may send before its first video packet while it still counts as a video
    /// source: publishers interleave their tracks far closer (an MPEG-TS muxer holds sound at
    /// most 0.7 s ahead of the pictures), so more than this, with not one video packet and no
    /// video announced, is a source of sound only, for now. Video that comes later still takes
    /// over at its first picture, within the open timeout.
    static let soundBeforeVideoLimit = 2.0

    /// Whether `thread`'s source has sent `soundBeforeVideoLimit` seconds of sound and no video,
    /// and its container does not announce any: an RTMP server holds a camera's video back until
    /// its next keyframe (nginx-rtmp's `wait_key`), seconds away with a long GOP, while its
    /// `onMetaData` already says there is video (`FormatContext.announcesVideo`).
    private func sendsSoundOnly(_ thread: DecodeThread) -> Bool {
        guard thread.reception.videoPackets == 0, !thread.reception.announcesVideo,
              let extent = thread.sound.extent(epoch: LiveSound.beforeVideo) else { return false }
        return extent.seconds >= ItemPlayer.soundBeforeVideoLimit
    }

    /// The thread's next event, left queued, waiting for it until `deadline` (nil: as long as it
    /// takes); nil at the deadline, or once the render is asked to stop (SIGINT): the render
    /// then stops at its next frame, instead of when a source that never answers runs out its
    /// open timeout, and the source is not failed for a wait that was called off.
    func waitForEvent(from thread: DecodeThread, until deadline: Date?) -> DecodedEvent? {
        // Without a deadline or an interruption, as before: `.end` once the queue has closed.
        if deadline == nil && interruption == nil { return thread.peek() }
        return thread.peek(until: deadline, unless: interruption)
    }

    func handle(_ event: DecodedEvent, at t: Double) {
        switch event {
        case .opened(let facts):
            // A shard's player activated mid-item opened already, during the fast-forward.
            let first = media == nil
            media = facts
            if first {
                trace.record(.opened, t: t, story: storyID, item: tracedItem, player: id, participant: participant) { event in
                    guard let live = self.live, !facts.deliveredBy.isEmpty else { return }
                    event.protocolName = facts.deliveredBy
                    // The target the play starts at: the source's own suggestion (PART-HOLD-BACK,
                    // suggestedPresentationDelay) when the storyboard gives none.
                    let suggested = live.takesSuggestedTarget ? facts.suggestedTarget : nil
                    event.targetMs = ((suggested ?? live.playhead.target) * 1000).rounded()
                }
            }
        case .picture(let time, let image, let spans):
            received += 1
            if let spans { pendingSpans = spans }
            shown = (time, image)
        case .decoded:
            preconditionFailure("a picture reaches the player only converted")
        case .reconnect(let attempt, let reason):
            trace.record(.reconnect, t: t, story: storyID, item: tracedItem, player: id, error: reason, attempt: attempt,
                         participant: participant)
        case .discontinuity, .cadence:
            // Live events, taken in `advanceLive`.
            break
        case .end:
            dataEnded = true
            dataEndTime = (shown?.time ?? 0) + (media?.frameDuration ?? 0)
        case .failed(let error):
            if shown != nil && !item.isLive && !item.source.isRemote {
                // A decode error after pictures were shown ends a file, as a truncated file does.
                dataEnded = true
                dataEndTime = (shown?.time ?? 0) + (media?.frameDuration ?? 0)
            } else {
                fail(error, at: t)
            }
        }
    }

    func fail(_ error: MediaError, at t: Double) {
        state = .failed(error)
        close()
        trace.record(.failed, t: t, story: storyID, item: tracedItem, player: id, error: error.description, participant: participant)
    }
}
