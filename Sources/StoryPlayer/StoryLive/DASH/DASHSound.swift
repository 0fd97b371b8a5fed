internal import CFFmpeg
import Foundation
import StoryMedia
import Synchronization

/// The sound of a live DASH story, opened, read and decoded on a thread of its own from the
/// audio representation's segments.
///
/// DASH sends sound in segments of its own, whose boundaries do not fall where the pictures'
/// do (ffmpeg's dash muxer: 1.003 s of AAC against 1 s of video); read in step with the pictures
/// on the decode thread, the picture after each video segment would wait for the next audio
/// segment, a whole segment later. So the sound is read ahead as its segments come, and the
/// decode thread takes what has been heard with each picture, as it does a push stream's. It is
/// opened on its thread too, so that the first picture never waits for it.
///
/// Started by `MediaDecoder` when the play decodes sound, and freed whole by its `close()`: the
/// thread is stopped through its own gate (which interrupts an open or a read under way) and
/// waited for, so that a stopped player leaves no demuxer or decoder behind.
final class DASHSound: Sendable, LiveSoundReader {
    /// Where the sound comes from and where it starts.
    struct Plan: Sendable {
        var manifestURL: String
        var manifest: DASHManifest
        var representation: DASHRepresentation
        var start: Int
        var behind: Double
        var protocols: [String]
        /// The publisher's clock less this machine's (`DASHServerClock`).
        var clockOffset = 0.0
    }

    private let plan: Plan
    /// Sound heard and not yet taken, in absolute stream seconds; bounded as `MediaDecoder`'s is.
    private let heard = Mutex<[SoundBlock]>([])
    private let gate = InterruptGate()
    private let done = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    /// The most blocks kept for a caller that does not take them (about a minute).
    static let heldBlocks = 3000

    init(_ plan: Plan) {
        self.plan = plan
    }

    /// Starts opening and reading on a thread named `name`; sound is counted into `reception`.
    func start(limits: DecodeLimits, reception: SourceReception, name: String) {
        guard !gate.isStopped, !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            DecoderWorkers.nameThisThread(name)
            defer { done.signal() }
            guard let format = open(limits: limits) else { return }
            read(format, limits: limits, reception: reception)
            format.close()
        }
        thread.name = name
        thread.start()
    }

    /// The audio representation's demuxer (`FormatContext(input:)`), within the open timeout;
    /// nil when it cannot be opened: the story then plays silent, not failed.
    private func open(limits: DecodeLimits) -> FormatContext? {
        gate.arm(seconds: limits.timeouts.open)
        defer { gate.disarm() }
        let feed = DASHSegmentFeed(manifestURL: plan.manifestURL, manifest: plan.manifest, representation: plan.representation,
                                   start: plan.start, behind: plan.behind, gate: gate, timeout: limits.timeouts.open,
                                   protocols: plan.protocols, clockOffset: plan.clockOffset)
        guard let format = try? FormatContext(input: SegmentInput(feed: feed), name: plan.manifestURL,
                                              options: FormatContext.dashOptions, gate: gate) else { return nil }
        guard (try? format.readStreamInfo(limits: limits)) != nil else {
            format.close()
            return nil
        }
        return format
    }

    private func read(_ format: FormatContext, limits: DecodeLimits, reception: SourceReception) {
        let packet = Packet()
        defer { packet.close() }
        var track: SoundTrack?
        defer { track?.close() }
        while !gate.isStopped {
            gate.arm(seconds: limits.timeouts.read)
            let status = format.readFrame(into: packet)
            gate.disarm()
            // A read that failed ends the sound, not the story: its pictures go on.
            guard status >= 0 else { return }
            defer { packet.unref() }
            let index = packet.streamIndex
            guard format.mediaType(ofStream: index) == AVMEDIA_TYPE_AUDIO else { continue }
            reception.countAudio()
            if track == nil {
                guard let made = try? SoundTrack(stream: format.soundStream(isLive: true, heard: index), of: format, limits: limits) else { return }
                track = made
            }
            guard let track, index == track.index else { continue }
            let blocks = track.decode(packet)
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

    /// Stops the thread (an open or a read under way gives up) and waits up to `seconds` for it
    /// to free the demuxer and decoder.
    func stop(waitingUpTo seconds: Double = 2) {
        gate.requestStop()
        if started.load(ordering: .acquiring) { _ = done.wait(timeout: .now() + seconds) }
    }
}
