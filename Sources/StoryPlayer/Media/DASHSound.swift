import CFFmpeg
import Foundation
import Synchronization

/// The sound of a live DASH story, read and decoded on a thread of its own from the audio
/// representation's demuxer (`DASHOpening.audio`).
///
/// DASH sends sound in segments of its own, whose boundaries do not fall where the pictures'
/// do (ffmpeg's dash muxer: 1.003 s of AAC against 1 s of video); read in step with the pictures
/// on the decode thread, the picture after each video segment would wait for the next audio
/// segment, a whole segment later. So the sound is read ahead as its segments come, and the
/// decode thread takes what has been heard with each picture, as it does a push stream's.
///
/// Started by `MediaDecoder` when the play decodes sound, and freed whole by its `close()`:
/// the thread is stopped through its own gate and waited for, so that a stopped player leaves
/// no demuxer or decoder behind.
final class DASHSound: Sendable {
    /// Sound heard and not yet taken, in absolute stream seconds; bounded as `MediaDecoder`'s is.
    private let heard = Mutex<[SoundBlock]>([])
    private let gate: InterruptGate
    private let done = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    /// The demuxer, until the thread takes it over.
    private let pending: Mutex<FormatContext?>

    /// The most blocks kept for a caller that does not take them (about a minute).
    static let heldBlocks = 3000

    init(format: sending FormatContext, gate: InterruptGate) {
        pending = Mutex(format)
        self.gate = gate
    }

    /// Starts reading on a thread named `name`; sound is counted into `reception`.
    func start(limits: DecodeLimits, reception: SourceReception, name: String) {
        guard let format = pending.withLock({ $0.take() }) else { return }
        started.store(true, ordering: .releasing)
        // The demuxer moves to the thread, which alone touches it from here until it frees it.
        nonisolated(unsafe) let owned = format
        let thread = Thread { [self] in
            DecoderWorkers.nameThisThread(name)
            defer { done.signal() }
            read(owned, limits: limits, reception: reception)
            owned.close()
        }
        thread.name = name
        thread.start()
    }

    private func read(_ format: FormatContext, limits: DecodeLimits, reception: SourceReception) {
        let packet = Packet()
        defer { packet.close() }
        var track: SoundTrack?
        defer { track?.close() }
        guard let context = format.pointer, let packetPointer = packet.pointer else { return }
        while !gate.isStopped {
            gate.arm(seconds: limits.timeouts.read)
            let status = format.readFrame(into: packetPointer)
            gate.disarm()
            // A read that failed ends the sound, not the story: its pictures go on.
            guard status >= 0 else { return }
            defer { av_packet_unref(packetPointer) }
            let index = packetPointer.pointee.stream_index
            guard index >= 0, Int(index) < Int(context.pointee.nb_streams),
                  context.pointee.streams[Int(index)]!.pointee.codecpar!.pointee.codec_type == AVMEDIA_TYPE_AUDIO else { continue }
            reception.countAudio()
            if track == nil {
                guard let made = try? SoundTrack(stream: index, of: context, limits: limits) else { return }
                track = made
            }
            guard let track, index == track.index else { continue }
            let blocks = track.decode(packetPointer)
            guard !blocks.isEmpty else { continue }
            heard.withLock { heard in
                heard.append(contentsOf: blocks)
                if heard.count > DASHSound.heldBlocks { heard.removeFirst(heard.count - DASHSound.heldBlocks) }
            }
        }
    }

    /// The sound heard since the last call, oldest first.
    func take() -> [SoundBlock] {
        heard.withLock { heard in
            defer { heard.removeAll(keepingCapacity: true) }
            return heard
        }
    }

    /// Stops the thread and waits up to `seconds` for it to free the demuxer and decoder; frees
    /// a demuxer never handed to a thread at once.
    func stop(waitingUpTo seconds: Double = 2) {
        gate.requestStop()
        pending.withLock { $0.take() }?.close()
        if started.load(ordering: .acquiring) { _ = done.wait(timeout: .now() + seconds) }
    }
}
