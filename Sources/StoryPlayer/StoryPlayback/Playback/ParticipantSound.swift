import Compositor
import Foundation
import StoryMedia
import StoryModel
import Synchronization

/// What a room participant's source is, as its sound thread found when it opened it.
struct ParticipantFacts: Sendable {
    var hasVideo = false
    /// The video's size as shown (turned, sample aspect applied), when the probe knew it.
    var videoSize: (width: Int, height: Int)?
    var hasSound = false
    var avatar: RGBAImage?
}

/// What a participant's sound thread sends the room, in order: `opened` or `failed` first, then
/// sound until `end` or `failed`.
enum ParticipantSoundEvent: Sendable {
    case opened(ParticipantFacts)
    case sound(SoundBlock)
    case end
    case failed(MediaError)
}

/// One room participant's sound, decoded on a thread of its own, as `DecodeThread` decodes a
/// story's pictures: a network that stalls holds up this thread, never the render.
///
/// The thread probes the source, loads the avatar, opens the audio (`ItemAudio`) and reads it
/// block by block into a bounded queue; it owns every FFmpeg object it makes and frees them as
/// it ends. Each read runs under the thread's `InterruptGate` armed with the read timeout, so a
/// stalled server fails the participant (`.timeout`), and a read error is a failure, not an end.
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
    }

    /// Blocks of decoded sound between the thread and the render: an AAC frame is 21 ms, so
    /// about 1.4 s of sound, more than the room reads ahead of itself.
    static let queuedBlocks = 64

    private let channel = Channel()
    private let waits: Bool
    private let rate = Double(ItemAudio.rate)
    /// Decoded stereo samples, interleaved, starting at media time `bufferStart`.
    private var buffer: [Float] = []
    private var bufferStart: Double?
    /// No more sound will come: the source ended, failed, or the thread was stopped.
    private(set) var ended = false
    /// Why the participant failed after it opened, until `takeFailure()` hands it on.
    private var failure: MediaError?
    private var stopped = false
    /// `close()` has waited for the thread once (its semaphore is signalled once).
    private var waitedForEnd = false

    /// Starts the thread for `participant`; `open(waiting:)` then says what it found.
    init(participant: RoomParticipant, limits: DecodeLimits, waits: Bool, name: String) {
        self.waits = waits
        let channel = channel
        let thread = Thread {
            DecoderWorkers.nameThisThread(name)
            ParticipantSound.run(participant, limits: limits, channel: channel)
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
    private static func run(_ participant: RoomParticipant, limits: DecodeLimits, channel: Channel) {
        var facts = ParticipantFacts()
        facts.avatar = participant.avatar.flatMap { try? PictureLoader.load($0, width: 256, height: 256, limits: limits) }
        var probeLimits = limits
        probeLimits.timeouts.retries = 0
        let audio: ItemAudio?
        do throws(MediaError) {
            do throws(MediaError) {
                let probe = try MediaProbe.run(source: participant.source, limits: probeLimits, isLive: participant.isLive,
                                               decodeFirstFrame: false, gate: channel.gate)
                // A live publisher may send its sound before its first picture, so a live
                // participant counts as having video until its player finds out.
                facts.hasVideo = probe.kind != .sound || participant.isLive
                if probe.width > 0, probe.height > 0 { facts.videoSize = (probe.width, probe.height) }
            } catch {
                // A sound file (cy.m4a) is a participant without video, not a failure.
                guard error.code == .noVideoStream else { throw error }
            }
            do throws(MediaError) {
                audio = try ItemAudio(source: participant.source, limits: limits, isLive: participant.isLive, gate: channel.gate)
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
        guard channel.queue.put(.opened(facts)), let audio else { return }
        defer { audio.close() }
        while !channel.gate.isStopped {
            do throws(MediaError) {
                guard let block = try audio.nextBlock() else {
                    channel.queue.put(.end)
                    return
                }
                guard block.samples.isEmpty || channel.queue.put(.sound(block)) else { return }
            } catch {
                channel.queue.put(.failed(error))
                return
            }
        }
    }

    // MARK: - Opening

    /// What the thread found when it opened the source, or why it could not open it: waited
    /// for when `waiting` (bounded by the open timeout), else nil until the thread has said.
    func open(waiting: Bool) -> Result<ParticipantFacts, MediaError>? {
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
        case .sound, .end:
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
            case .sound(let block):
                if bufferStart == nil { bufferStart = block.time }
                buffer.append(contentsOf: block.samples)
            case .failed(let error):
                ended = true
                if !stopped { failure = error }
            case .end, .opened:
                ended = true
            }
        }
    }

    /// A failure after the source opened, once.
    func takeFailure() -> MediaError? {
        defer { failure = nil }
        return failure
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
