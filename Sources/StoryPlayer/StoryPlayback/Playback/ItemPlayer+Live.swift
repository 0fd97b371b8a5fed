import Compositor
import Foundation
import StoryLive
import StoryMedia
import StoryModel
import StoryTrace

extension ItemPlayer {
    // MARK: - A live item on its stream's clock

    /// The clock and controller of a live item's play, with the item's latency over the storyboard's.
    static func livePlayback(for item: StoryItem, limits: DecodeLimits, waits: Bool) -> LivePlayback? {
        guard item.isLive, item.room == nil else { return nil }
        let given = (item.latency ?? LiveLatency()).over(limits.latency)
        guard let source = LiveSources.reading(item.source, isLive: true) else { return nil }
        var live = LivePlayback(playhead: LivePlayhead(latency: given.resolved(kind: source.kind), controlsSpeed: !waits))
        live.comesInSegments = source.comesInSegments
        live.takesSuggestedTarget = given.target == nil
        return live
    }

    /// Opens `item`'s source (a live one through its protocol, `LiveSource`) for what it is, as
    /// a play opens it; the caller closes the decoder.
    static func openForFacts(_ item: StoryItem, limits: DecodeLimits) throws(MediaError) -> (MediaDecoder, MediaFacts) {
        let live = LiveSources.reading(item.source, isLive: item.isLive)
        let decoder = try MediaDecoder(source: item.source, limits: limits, isLive: item.isLive, live: live)
        return (decoder, MediaFacts(decoder, isLive: item.isLive, live: live))
    }

    /// Takes the pictures whose time has come on the live clock at media time `local`. With the
    /// realtime clock it also steers towards the target offset, tells the convert thread which
    /// pictures are already late, and counts rebuffers.
    func advanceLive(to local: Double, at t: Double) {
        guard var live, let thread = decodeThread else { return }
        defer { self.live = live }
        live.playhead.tick(to: local)
        while !dataEnded {
            guard let event = nextEvent(from: thread) else { break }
            switch event {
            case .picture(let time, _, _):
                guard takeLivePicture(at: time, into: &live, from: thread, local: local) else {
                    return finishLiveStep(&live, thread, local)
                }
            case .discontinuity(let epoch, let from, let to, let reconnected, let returnGap):
                restartLiveClock(&live, epoch: epoch, from: from, to: to, reconnected: reconnected, returnGap: returnGap, at: t)
            case .reconnect(let attempt, _):
                live.lastAttempt = attempt
            case .cadence(let change):
                traceCadence(change, at: t)
            default:
                break
            }
            thread.dropNext()
            handle(event, at: t)
        }
        finishLiveStep(&live, thread, local)
        followSoundBeforeVideo(&live, thread, local)
        failIfVideoNeverDecodes(at: t)
    }

    /// The decode thread's next picture, at `time`, taken on the live clock at media time
    /// `local` (the picture before let go); false when it is not due yet, and stays for a
    /// later step.
    private func takeLivePicture(at time: Double, into live: inout LivePlayback, from thread: DecodeThread, local: Double) -> Bool {
        if live.isRebuffering {
            // The stream is back: the clock goes on. A picture ahead of the held clock
            // (the publisher's timestamps moved on meanwhile) is due now, not never. A
            // segment source's clock goes on from the picture that came back, as a
            // player's does from its buffer: it held at most a frame past it, which is
            // not worth passing the picture over for. A pushed source's coasted 0.1 s
            // on, whose sound would be heard twice if the clock went back that far.
            live.isRebuffering = false
            live.playhead.dataResumed(at: local)
            if let position = live.playhead.position, time > position || live.comesInSegments {
                live.playhead.anchor(at: time + 0.5 * frameDuration)
            }
        }
        if let position = live.playhead.position, shown != nil, !PictureTime.isShown(time, by: position) { return false }
        // Anchored half a picture late, so a timestamp rounded to the container's unit
        // (FLV counts milliseconds) is never a hair past its frame and shown a frame late,
        // two pictures then falling due at once.
        if live.playhead.position == nil { live.playhead.anchor(at: time + 0.5 * frameDuration) }
        if let old = shown {
            if old.time != countedPictureTime { live.passedOver += 1 }
            // Let go of the old picture before the thread wakes, so its storage is free to reuse.
            shown = nil
            thread.recycle(old.image)
        }
        live.newest = time
        if live.isCatchingUp, let position = live.playhead.position, time >= position - 1.5 * frameDuration {
            // Caught up: the clock goes on from the picture the jump landed on, up to a
            // picture and a half behind where it aimed, rather than finding the next one
            // overdue before the decoder has reached it.
            live.isCatchingUp = false
            if time + 0.5 * frameDuration < position { live.playhead.anchor(at: time + 0.5 * frameDuration) }
        }
        return true
    }

    /// The source's timestamps jumped, or a new connection began (`reconnected`): the clock
    /// lets go of its anchor, and a new session (`returnGap`, the decode thread's word) starts
    /// the controller afresh.
    private func restartLiveClock(_ live: inout LivePlayback, epoch: Int, from: Double, to: Double, reconnected: Bool,
                                  returnGap: Double?, at t: Double) {
        live.epoch = epoch
        live.newest = nil
        live.playhead.unanchor()
        let detail = reconnected ? "a new connection: the source's timestamps went from \(format(from)) s to \(format(to)) s"
            : "timestamps jumped from \(format(from)) s to \(format(to)) s"
        trace.record(.discontinuity, t: t, story: storyID, item: tracedItem, player: id, detail: detail, participant: participant)
        if let returnGap {
            live.startSession(gap: returnGap, detail: detail, attempt: reconnected ? live.lastAttempt : nil)
        }
    }

    /// A source that has sent sound and no video yet plays that sound on a clock of its own
    /// (`SoundOnlyClock`), for the MP4. With the virtual clock the render waits for the sound
    /// due, at most the read timeout, as it waits for pictures: the timeline would otherwise run
    /// ahead of a sound that comes in real time, and the MP4 go silent.
    ///
    /// The wait is once a frame (a frame may advance twice: its picture, then whether the item
    /// ended), and ends early when the thread has something to say (a reconnect, a failure, a
    /// picture) or video starts to come.
    private func followSoundBeforeVideo(_ live: inout LivePlayback, _ thread: DecodeThread, _ local: Double) {
        guard received == 0, !isFailed, !dataEnded, decodeThread === thread, thread.reception.videoPackets == 0,
              let extent = thread.sound.extent(epoch: LiveSound.beforeVideo) else { return live.soundOnly = nil }
        if live.soundOnly == nil {
            live.soundOnly = SoundOnlyClock(earliest: extent.earliest, newest: extent.newest, at: local)
        } else {
            live.soundOnly?.follow(earliest: extent.earliest, newest: extent.newest, at: local)
        }
        guard waits, live.soundWaitedAt != local, let position = live.soundOnly?.position(at: local), extent.newest.end < position else { return }
        live.soundWaitedAt = local
        let deadline = Date(timeIntervalSinceNow: limits.timeouts.read)
        while (thread.sound.extent(epoch: LiveSound.beforeVideo)?.newest.end ?? -.infinity) < position, Date() < deadline,
              interruption?.requested == nil, thread.reception.videoPackets == 0, thread.peekNow() == nil {
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    /// A live source whose video arrives but has not given one picture by the open timeout fails
    /// its item then, with why, instead of loading until the item's time runs out. Video that
    /// comes later (a source that sent only sound at first) has the open timeout from its first
    /// packet: what fails here is video that does not decode, not video that came late.
    private func failIfVideoNeverDecodes(at t: Double) {
        guard received == 0, !isFailed, let thread = decodeThread, thread.reception.videoPackets > 0 else { return }
        let deadline = firstPictureWait(thread)
        guard Date() >= deadline else { return }
        // Video from the start arrives within a second of opening; later video is its own case.
        let since = deadline > firstPictureDeadline.addingTimeInterval(1) ? "its first video packet" : "opening"
        fail(MediaError(.decode, "no decodable picture", cause: ErrorText(thread.reception.undecodableReason(
            span: "in the \(ObjectReader.format(limits.timeouts.open)) s since \(since)"))), at: t)
    }

    private var frameDuration: Double { media?.frameDuration ?? MediaFacts.assumedFrameDuration }

    private func format(_ seconds: Double) -> String { ObjectReader.format((seconds * 1000).rounded() / 1000) }

    /// The realtime clock's part of a step: the controller, late pictures, rebuffers.
    private func finishLiveStep(_ live: inout LivePlayback, _ thread: DecodeThread, _ local: Double) {
        guard live.playhead.controlsSpeed, var position = live.playhead.position else { return }
        if live.takesSuggestedTarget, let suggested = thread.edge.suggestedTarget {
            live.playhead.retarget(suggested)
            live.takesSuggestedTarget = false
        }
        if let speeds = thread.edge.suggestedSpeeds { live.playhead.speeds = speeds }
        if thread.edge.hasEnded {
            // A finished playlist played as live jumped its first 2 s to reach a target behind
            // an edge that was never going to move (56 pictures never shown).
            live.playhead.playOut()
        } else if let offset = thread.edge.offset(of: position, epoch: live.epoch, now: LiveEdge.now()),
           let jump = live.playhead.control(offset: offset.seconds, at: local,
                                            edgeIsFirm: thread.edge.isFirm(epoch: live.epoch)) {
            position += jump
            live.isCatchingUp = true
        }
        let frame = frameDuration
        if !dataEnded, live.isDry(at: position, frame: frame, queueIsEmpty: thread.peekNow() == nil,
                                  decodedPast: { thread.edge.hasDecoded(after: $0, epoch: live.epoch) }) {
            live.isRebuffering = true
            live.rebuffers += 1
            live.playhead.rebuffered()
            return
        }
        // A picture whose successor is due too will never be shown: no need to convert it.
        thread.skip(before: position - 1.5 * frame, epoch: live.epoch)
    }

    /// Notes how far behind the edge the picture drawn at timeline `t` is. The first picture of
    /// a source back after a gap traces its return: a `reconnect` with the gap and that offset.
    func recordLiveOffset(of time: Double, at t: Double) {
        // Once an ended stream's last picture has had its time, the frames that hold it show
        // no stream: counted, they made a play 3.5 s behind throughout report a p95 of 10.7 s.
        guard !liveDataHasRunOut, var live, let thread = decodeThread,
              let offset = thread.edge.offset(of: time, epoch: live.epoch, now: LiveEdge.now()) else { return }
        live.noteOffset(at: t, seconds: max(0, offset.seconds))
        live.offsetFrom = offset.from
        if let back = live.returning, live.newest != nil {
            live.returning = nil
            let gap = (back.gap * 1000).rounded(), shown = (max(0, offset.seconds) * 1000).rounded()
            let how = back.attempt.map { "reconnect try \($0) brought it back" } ?? "the connection held"
            trace.record(.reconnect, t: t, story: storyID, item: tracedItem, player: id, attempt: back.attempt,
                         detail: "pictures again after \(ObjectReader.format(gap / 1000)) s without one (\(how); \(back.detail)), "
                            + "\(ObjectReader.format(shown / 1000)) s behind the live edge",
                         participant: participant) { event in
                event.gapMs = gap
                event.offsetMs = shown
            }
        }
        self.live = live
    }

    /// Traces a change of the stream's cadence (`FrameCadence`).
    private func traceCadence(_ change: FrameCadence.Change, at t: Double) {
        let fps: Double, jitter: Double?, detail: String
        switch change {
        case .locked(let interval, let distance, let pictures):
            fps = (100 / interval).rounded() / 100
            jitter = (distance * 10_000).rounded() / 10
            detail = "locked after \(pictures) pictures: timestamps within \(ObjectReader.format(jitter!)) ms of a steady "
                + "\(ObjectReader.format(fps)) fps, released on it"
        case .unlocked(let interval, let reason):
            fps = (100 / interval).rounded() / 100
            jitter = nil
            detail = "let go: \(reason); pictures are released at their own timestamps until a cadence holds again"
        }
        trace.record(.cadence, t: t, story: storyID, item: tracedItem, player: id, detail: detail, participant: participant) { event in
            event.fps = fps
            event.jitterMs = jitter
        }
    }

    /// The sound under the picture at media time `local`: from the live clock's position, at its
    /// speed. Silent while the clock waits for the stream (a rebuffer), as a player's is. Before
    /// any picture, the sound of a source that has sent no video, on its own clock.
    func liveSound(at local: Double) -> LiveSoundTake? {
        guard let live, let thread = decodeThread else { return nil }
        if live.playhead.position == nil, let clock = live.soundOnly {
            return LiveSoundTake(sound: thread.sound, from: clock.position(at: local), speed: 1, epoch: LiveSound.beforeVideo)
        }
        guard let position = live.playhead.position, !live.playhead.isWaitingForData, !live.isRebuffering else { return nil }
        return LiveSoundTake(sound: thread.sound, from: position, speed: live.playhead.speed, epoch: live.epoch)
    }

    /// Whether a live item's data has ended (`#EXT-X-ENDLIST`) and its clock has passed the last picture.
    var liveDataHasRunOut: Bool {
        guard let live, dataEnded, let end = dataEndTime, let position = live.playhead.position else { return false }
        return position >= end - 1e-9
    }

    /// The figures for this play's `stop` event; nil for anything but a live item.
    var liveFigures: LivePlaybackFigures? {
        live?.figures(skipped: skippedAtClose ?? decodeThread?.skipped ?? 0)
    }
}

extension ItemPlayer {
    /// How much a WebRTC source's jitter buffer held (ms), for its `stop`; nil for other sources.
    var jitterBufferMs: Double? { jitterBufferAtClose ?? decodeThread?.jitterBufferMs }
}
