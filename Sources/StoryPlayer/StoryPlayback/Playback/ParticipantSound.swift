import Compositor
import Foundation
import StoryBase
import StoryLive
import StoryMedia
import StoryModel
import Synchronization

/// What a room participant's source is, as its sound thread found when it opened it.
struct ParticipantFacts: Sendable {
    var hasVideo = false
    var hasSound = false
    /// A recorded participant's length in seconds, when its file says: past it the participant
    /// has left (`RoomStage`). Nil for a live one.
    var duration: Double?
    var avatar: RGBAImage?
    /// The picture's size as shown (turned, sample aspect applied), when the probe could tell:
    /// a grid's tiles take the participants' shape.
    var videoSize: (width: Int, height: Int)?
}

/// What a participant's sound thread sends the room, in order: `opened` or `failed` first, then
/// sound (with a live source's reconnects between) until `end` or `failed`.
enum ParticipantSoundEvent: Sendable {
    case opened(ParticipantFacts)
    /// `replaces`: the block replaces what the room holds from its time on (`SoundPlacement.Placed.moved`).
    case sound(SoundBlock, replaces: Bool)
    /// A live source's connection dropped or its data stopped; this is reconnect try `attempt`.
    case reconnect(attempt: Int, reason: String)
    case end
    case failed(MediaError)
}

/// One room participant's sound, decoded on a thread of its own, as `DecodeThread` decodes a
/// story's pictures: a network that stalls holds up this thread, never the render.
///
/// The thread probes the source, loads the avatar, opens the audio (`ItemAudio`) and reads it
/// block by block into a bounded queue; it owns every FFmpeg object it makes and frees them as
/// it ends. Each read runs under the thread's `InterruptGate` armed with the read timeout. A
/// live source whose connection drops, or whose data stops for the read timeout, reconnects as a
/// live item does (`timeouts.retries` tries with the same backoff), because a publisher on a
/// phone drops and comes back; its sound goes on where it left off. A recorded source that
/// stalls or breaks fails the participant: a read error is a failure, not an end.
///
/// The render thread owns the rest: the samples taken from the queue, kept from about a second
/// behind the room's position. With the virtual clock it waits for the sound it needs (the
/// dominant speaker is then the same on every run); with the realtime clock it takes what has
/// come and never waits.
final class ParticipantSound {
    /// The thread's side: shared, so Sendable.
    private final class Channel: Sendable {
        let queue = BoundedQueue<ParticipantSoundEvent>(capacity: ParticipantSound.queuedBlocks)
        let gate = InterruptGate()
        let done = DispatchSemaphore(value: 0)
        let finished = Atomic<Bool>(false)
        /// The avatar, as soon as it is loaded: before the source has opened, which over a
        /// network takes most of a second (or the open timeout, for one that never answers).
        let avatar = Mutex<RGBAImage?>(nil)
        /// How far ahead of a frame's time the room mixes sound, in microseconds (the frame's
        /// length, from the render's first read): a pushed source's sound must have come by then.
        let mixesAhead = Atomic<Int>(0)
    }

    /// Blocks of decoded sound between the thread and the render: an AAC frame is 21 ms, so
    /// about 1.4 s of sound, more than the room reads ahead of itself.
    static let queuedBlocks = 64

    private let channel = Channel()
    private let waits: Bool
    /// The render's: a wait for the source to open ends when it is requested (SIGINT).
    private let interruption: RenderInterruption?
    private let rate = Double(ItemAudio.rate)
    /// Decoded stereo samples, interleaved, starting at media time `bufferStart`.
    private var buffer: [Float] = []
    private var bufferStart: Double?
    /// No more sound will come: the source ended, failed, or the thread was stopped.
    private(set) var ended = false
    /// Why the participant failed after it opened, until `takeFailure()` hands it on.
    private var failure: MediaError?
    /// Reconnect tries the thread has reported, until `takeReconnects()` hands them on.
    private var reconnects: [(attempt: Int, reason: String)] = []
    private var stopped = false
    /// `close()` has waited for the thread once (its semaphore is signalled once).
    private var waitedForEnd = false

    /// How far behind its arrival a live participant's sound is heard with the realtime clock:
    /// room for the network's jitter, so the sound for a moment has come when the room mixes
    /// it. Near the push protocols' 0.1 s target (`LiveLatency.defaultTarget`), at which the
    /// large participant's video plays, so the voice stays with the lips.
    static let playoutDelay = 0.09

    /// The playout delay once the room mixes a frame's sound `mixesAhead` seconds ahead of the
    /// frame (its length): at 10 fps a frame's last 10 ms of sound would not have come at 0.09 s.
    static func playoutDelay(mixingAhead mixesAhead: Double) -> Double {
        max(playoutDelay, mixesAhead + 0.03)
    }

    /// Starts the thread for `participant` as the room comes on screen (the room's media time
    /// 0); `open(waiting:)` then says what it found.
    init(participant: RoomParticipant, limits: DecodeLimits, waits: Bool, interruption: RenderInterruption?, name: String) {
        self.waits = waits
        self.interruption = interruption
        let channel = channel
        let roomStart = ContinuousClock.now
        let thread = Thread {
            DecoderWorkers.nameThisThread(name)
            ParticipantSound.run(participant, limits: limits, waits: waits, roomStart: roomStart, channel: channel)
            channel.queue.close()
            channel.finished.store(true, ordering: .releasing)
            channel.done.signal()
        }
        thread.name = name
        thread.start()
    }

    deinit { close() }

    // MARK: - The thread

    /// Probes and opens the participant's source, then decodes its sound until it ends, fails
    /// or the gate is stopped. Everything FFmpeg it makes is freed here, before it returns.
    private static func run(_ participant: RoomParticipant, limits: DecodeLimits, waits: Bool, roomStart: ContinuousClock.Instant,
                            channel: Channel) {
        var facts = ParticipantFacts()
        facts.avatar = participant.avatar.flatMap { try? PictureLoader.load($0, width: 256, height: 256, limits: limits) }
        channel.avatar.withLock { $0 = facts.avatar }
        var probeLimits = limits
        probeLimits.timeouts.retries = 0
        let live = LiveSources.reading(participant.source, isLive: participant.isLive)
        let audio: ItemAudio?
        do throws(MediaError) {
            do throws(MediaError) {
                let probe = try MediaProbe.run(source: participant.source, limits: probeLimits, isLive: participant.isLive,
                                               decodeFirstFrame: false, gate: channel.gate, live: live)
                // A live publisher may send its sound before its first picture, so a live
                // participant counts as having video until its player finds out.
                facts.hasVideo = probe.kind != .sound || participant.isLive
                if probe.kind != .sound, probe.width > 0, probe.height > 0 { facts.videoSize = (probe.width, probe.height) }
                if !participant.isLive { facts.duration = probe.duration }
            } catch {
                // A sound file (cy.m4a) is a participant without video, not a failure.
                guard error.code == .noVideoStream else { throw error }
            }
            do throws(MediaError) {
                audio = try ItemAudio(source: participant.source, limits: limits, isLive: participant.isLive, gate: channel.gate,
                                      live: live)
            } catch {
                // Video without sound is shown muted, not failed.
                guard error.code == .noAudioStream else { throw error }
                audio = nil
            }
        } catch {
            channel.queue.put(.failed(error))
            return
        }
        facts.hasSound = audio != nil
        // The whole file's length: a recording whose sound outlasts its picture is still there.
        if !participant.isLive, let whole = audio?.duration { facts.duration = whole }
        guard channel.queue.put(.opened(facts)), let audio else { return }
        read(audio, of: participant, live: live, limits: limits, waits: waits, roomStart: roomStart, channel: channel)
    }

    /// Reads `audio` block by block into the queue, each block at its time on the room's clock
    /// (`SoundPlacement`); a live participant's dropped connection is opened again, up to
    /// `timeouts.retries` times.
    private static func read(_ opened: ItemAudio, of participant: RoomParticipant, live: (any LiveSource)?, limits: DecodeLimits, waits: Bool,
                             roomStart: ContinuousClock.Instant, channel: Channel) {
        var audio = opened
        defer { audio.close() }
        var reconnection = LiveReconnection(limit: limits.timeouts.retries)
        var placement = SoundPlacement(isLive: participant.isLive, waits: waits, followsEdge: live?.isPushed == true)
        while !channel.gate.isStopped {
            let failure: MediaError?
            do throws(MediaError) {
                if var block = try audio.nextBlock() {
                    let delay = ParticipantSound.playoutDelay(mixingAhead: Double(channel.mixesAhead.load(ordering: .relaxed)) / 1e6)
                    let placed = placement.place(&block, arrival: (ContinuousClock.now - roomStart).seconds, delay: delay)
                    guard block.samples.isEmpty || channel.queue.put(.sound(block, replaces: placed == .moved)) else { return }
                    if !block.samples.isEmpty { reconnection.delivered() }
                    continue
                }
                failure = nil
            } catch {
                failure = error
            }
            guard let next = reopen(after: failure, of: audio, participant: participant, live: live, limits: limits,
                                    reconnection: &reconnection, channel: channel) else { return }
            audio.close()
            audio = next
            placement.reconnected()
        }
    }

    /// After `audio` ended (`failure` nil) or failed: the participant's source opened again, or
    /// nil when its sound is over (the end or the failure sent on the queue).
    private static func reopen(after failure: MediaError?, of audio: ItemAudio, participant: RoomParticipant, live: (any LiveSource)?,
                               limits: DecodeLimits, reconnection: inout LiveReconnection, channel: Channel) -> ItemAudio? {
        if channel.gate.isStopped { return nil }
        // A recorded source ends or fails; so does a playlist or manifest that says it has
        // ended (`#EXT-X-ENDLIST`, a DASH presentation that turned static): the broadcast is
        // over, and opening it again would play its last segments twice.
        guard participant.isLive,
              failure != nil || live?.saysEnded(sound: audio, gate: channel.gate, timeout: limits.timeouts.read) != true else {
            channel.queue.put(failure.map { .failed($0) } ?? .end)
            return nil
        }
        // Anything else is a dropped stream, as a live item takes it: a pushed one's publisher
        // stopped or its connection broke, or a playlist stopped changing or went away
        // (FFmpeg's HLS reader ends cleanly on both). Reconnect (`LiveReconnection`), and
        // fail after the last try.
        let reason: any Error & Sendable = failure
            ?? ErrorText(live?.stallReason(after: nil) ?? "the stream ended")
        let outcome = reconnection.reopen(after: reason, gate: channel.gate) { attempt, reason in
            channel.queue.put(.reconnect(attempt: attempt, reason: reason))
        } open: { () throws(MediaError) in
            try ItemAudio(source: participant.source, limits: limits, isLive: true, gate: channel.gate, live: live)
        }
        switch outcome {
        case .reopened(let reopened): return reopened
        case .stopped: return nil
        case .lost(let lost):
            channel.queue.put(.failed(lost))
            return nil
        }
    }

    // MARK: - Opening

    /// What the thread found when it opened the source, or why it could not open it: waited
    /// for when `waiting` (bounded by the open timeout), else nil until the thread has said.
    /// The participant's avatar once the thread has loaded it, whether or not the source has
    /// opened yet (the realtime clock shows it while the source opens).
    var loadedAvatar: RGBAImage? { channel.avatar.withLock { $0 } }

    func open(waiting: Bool) -> Result<ParticipantFacts, MediaError>? {
        // A signal ends the wait while a source takes its open timeout.
        if waiting, channel.queue.peek(until: nil, unless: interruption) == nil, interruption?.requested != nil { return nil }
        guard let event = waiting ? channel.queue.take() : channel.queue.tryTake() else {
            if !waiting { return nil }
            ended = true
            return .failure(MediaError(.interrupted, "stopped"))
        }
        switch event {
        case .opened(let facts):
            if !facts.hasSound { ended = true }
            return .success(facts)
        case .failed(let error):
            ended = true
            return .failure(error)
        case .sound, .reconnect, .end:
            preconditionFailure("a participant's thread says what it opened before it sends sound")
        }
    }

    // MARK: - Sound

    /// Media time up to which sound has been taken.
    private var bufferedUntil: Double? {
        bufferStart.map { $0 + Double(buffer.count / 2) / rate }
    }

    /// Whether the sound up to media time `end` is here, or will never come.
    func covers(_ end: Double) -> Bool {
        take(until: end, waiting: false)
        return ended || (bufferedUntil ?? -.infinity) >= end - 1e-9
    }

    /// Moves blocks from the queue into the buffer until it reaches `end`: waiting for the
    /// thread when `waiting`, else only what has come.
    private func take(until end: Double, waiting: Bool) {
        while !ended && (bufferedUntil ?? -.infinity) < end - 1e-9 {
            guard let event = waiting ? channel.queue.take() : channel.queue.tryTake() else {
                if waiting { ended = true }
                return
            }
            switch event {
            case .sound(let block, let replaces):
                place(block, replacing: replaces)
            case .reconnect(let attempt, let reason):
                if !stopped { reconnects.append((attempt, reason)) }
            case .failed(let error):
                ended = true
                if !stopped { failure = error }
            case .end, .opened:
                ended = true
            }
        }
    }

    /// The longest gap in a participant's sound filled with silence: a reconnect's. A longer one
    /// (timestamps that jump) starts the buffer again at the block.
    static let longestGap = 10.0

    /// Adds `block` to the buffer where its time says: after a gap (a reconnect) the silence
    /// between comes first, so what follows is heard when it was said, not straight after the
    /// sound before the drop. A block that `replaces` (`SoundPlacement` moved a live
    /// connection's sound) takes the place of what the buffer held from its time on; any other
    /// block that steps back follows the buffer's end, as it always has.
    private func place(_ block: SoundBlock, replacing replaces: Bool) {
        let gap = bufferedUntil.map { block.time - $0 } ?? 0
        if !gap.isFinite || gap > ParticipantSound.longestGap {
            buffer.removeAll(keepingCapacity: true)
            bufferStart = nil
        } else if gap * rate >= 48 {
            // Under a millisecond is the rounding of blocks that follow each other.
            buffer.append(contentsOf: repeatElement(0, count: Int((gap * rate).rounded()) * 2))
        } else if replaces, gap * rate <= -48, let bufferStart {
            // Compared as seconds before any Int: a timestamp far out of range must not trap.
            let kept = (block.time - bufferStart) * rate
            if kept < 1 {
                buffer.removeAll(keepingCapacity: true)
                self.bufferStart = nil
            } else {
                buffer.removeLast(buffer.count - min(buffer.count, Int(kept.rounded()) * 2))
            }
        }
        if bufferStart == nil { bufferStart = block.time }
        buffer.append(contentsOf: block.samples)
    }

    /// A failure after the source opened, once.
    func takeFailure() -> MediaError? {
        defer { failure = nil }
        return failure
    }

    /// The reconnect tries that came with the sound taken so far, once each.
    func takeReconnects() -> [(attempt: Int, reason: String)] {
        defer { reconnects.removeAll() }
        return reconnects
    }

    /// A frame's sound for the room's mix: `samples(from:count:)`, read as the frame is drawn,
    /// so the thread places a pushed source's sound at least the frame's length after it arrives.
    func mixed(from start: Double, count: Int) -> [Float] {
        channel.mixesAhead.store(Int(Double(count) / rate * 1e6), ordering: .relaxed)
        return samples(from: start, count: count)
    }

    /// `count` stereo frames (2 × `count` floats) from media time `start`; silence where there
    /// is no sound (before it starts, after it ends, and with the realtime clock, not yet come).
    func samples(from start: Double, count: Int) -> [Float] {
        take(until: start + Double(count) / rate, waiting: waits)
        var out = [Float](repeating: 0, count: count * 2)
        guard let bufferStart else { return out }
        // Clamped: bufferStart comes from the source's timestamps, which may be anything.
        let samplesAhead = ((start - bufferStart) * rate).rounded()
        let offset = samplesAhead.isFinite ? Int(min(max(samplesAhead, -1e15), 1e15)) : 0
        for i in 0..<count {
            let source = offset + i
            if source >= 0 && source * 2 + 1 < buffer.count {
                out[i * 2] = buffer[source * 2]
                out[i * 2 + 1] = buffer[source * 2 + 1]
            }
        }
        // The room only moves forward: drop what lies more than a second behind.
        let behind = offset - ItemAudio.rate
        if behind > 0 {
            let dropped = min(buffer.count / 2, behind)
            buffer.removeFirst(dropped * 2)
            self.bufferStart = bufferStart + Double(dropped) / rate
        }
        return out
    }

    // MARK: - Stop

    /// Tells the thread to stop without waiting for it: its gate gives up any wait, and the
    /// thread frees its FFmpeg objects as it ends. A room tells all its threads before it waits
    /// for any, so their network waits unwind side by side.
    func requestStop() {
        guard !stopped else { return }
        stopped = true
        ended = true
        channel.gate.requestStop()
        channel.queue.close()
    }

    /// Stops the thread and waits for it at most `DecodeThread.stopWait`. Returns whether it has
    /// ended. Safe to call more than once.
    @discardableResult
    func close() -> Bool {
        if !stopped {
            requestStop()
            _ = channel.done.wait(timeout: .now() + DecodeThread.stopWait)
        } else if !channel.finished.load(ordering: .acquiring), !waitedForEnd {
            _ = channel.done.wait(timeout: .now() + DecodeThread.stopWait)
        }
        waitedForEnd = true
        return channel.finished.load(ordering: .acquiring)
    }
}
