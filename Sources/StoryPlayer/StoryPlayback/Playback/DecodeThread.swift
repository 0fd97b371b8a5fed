import Compositor
import Foundation
import StoryBase
import StoryLive
import StoryMedia
import StoryModel
import Synchronization

/// The threads that play one item, ahead of the render: the decode thread opens the source, then
/// demuxes and decodes into a queue of one picture (as many as fit in 16 MB for a recorded play,
/// `DecodeLimits.decodeAheadBytes`); beside it a convert thread turns each picture
/// into canvas-size RGBA, into a small bounded queue for the player. One pair per playing story;
/// they end with their player.
///
/// Converting on a thread of its own takes it off the decode thread, which is a story's critical
/// path while it rests on screen: the decode thread decodes the next picture while this one is
/// converted, on the other core.
///
/// Every blocking FFmpeg call runs under the thread's interrupt gate. `stop()` closes the gate, so
/// a thread blocked in the network gives up within FFmpeg's polling interval, then waits a bounded
/// time for the threads; each frees its FFmpeg objects itself as it ends.
final class DecodeThread: Sendable {
    /// Converted pictures and the other events, for the player.
    private let queue: BoundedQueue<DecodedEvent>
    /// Decoded pictures (`.decoded`) and the other events, for the convert thread: one until a
    /// recorded play's first picture says how many its budget holds (`DecodeLimits.picturesAhead`).
    private let decoded = BoundedQueue<DecodedEvent>(capacity: 1)
    private let spares = PicturePool(capacity: 1)
    private let gate = InterruptGate()
    /// Stops a live playlist's watch (`PlaylistWatch`), which waits on a gate of its own.
    private let watchGate = InterruptGate()
    /// What the source has sent so far, on every connection of this play.
    let reception = SourceReception()
    /// Where a live source's edge is (`LiveEdge`), for the player's offset and controller.
    let edge = LiveEdge()
    /// A WebRTC source's jitter buffer depth (ms), as its session last said; nil for other sources.
    let jitterBuffer = JitterBufferDepth()
    var jitterBufferMs: Double? { jitterBuffer.milliseconds }
    /// A live source's sound, decoded beside its pictures, for the MP4.
    let sound = LiveSound()
    /// Live pictures older than this are not converted: the player has passed their time.
    private let skip = SkipBefore()
    /// How far a recorded play decodes (`DecodeReach`): its player's, set from the plan.
    let reach: DecodeReach
    private let done = DispatchSemaphore(value: 0)
    private let progress = Mutex<(stopped: Bool, finished: Int)>((false, 0))
    private static let threads = 2

    /// How long `stop()` waits for the thread before leaving it to finish on its own.
    static let stopWait: Double = 0.08

    /// `startAt` > 0 seeks to the last keyframe before that media time and decodes forward from
    /// there (a shard starting mid-item), instead of decoding from the beginning. With
    /// `fitsWhole`, `width`×`height` is a box each picture is fitted in whole (a room's large
    /// area), at the size its own shape gives, instead of a canvas it covers. `still`: what a
    /// recorded source of sound only shows (`SoundOnlyStill`); nil fails one, as before (a
    /// room's video player, whose participant's sound only is shown by its avatar).
    init(source: MediaSource, isLive: Bool, limits: DecodeLimits, width: Int, height: Int, fitsWhole: Bool = false,
         keepsSound: Bool = true, clock: StageClock?, name: String, startAt: Double = 0, reach: DecodeReach = DecodeReach(),
         still: SoundOnlyStill? = nil) {
        queue = BoundedQueue(capacity: limits.queuedPictures)
        self.reach = reach
        let started = InterruptGate.now()
        let playing = {
            var playing = limits
            playing.decoderThreads = isLive ? 1 : limits.playbackThreads
            playing.heavyDecoderThreads = isLive ? nil : limits.heavyPlaybackThreads
            return playing
        }()
        let thread = Thread { [self] in
            // Named from inside: Foundation's `Thread.name` does not reach the kernel here, and
            // the decoder's own threads are told apart by this name (`DecoderWorkers`).
            DecoderWorkers.nameThisThread(name)
            let worker = Worker(source: source, isLive: isLive, live: LiveSources.reading(source, isLive: isLive), keepsSound: keepsSound, limits: playing, clock: clock, gate: gate,
                                reception: reception, edge: edge, jitterBuffer: jitterBuffer, sound: sound, skip: skip, reach: reach, queue: decoded, started: started, startAt: startAt,
                                playlistName: "playlist" + name.drop { $0 != " " }, watchGate: watchGate, still: still,
                                canvas: (width, height))
            worker.run()
            // Nothing more will come: the convert thread passes on what is queued, then ends.
            decoded.close()
            progress.withLock { $0.finished += 1 }
            done.signal()
        }
        thread.name = name
        // Named apart from the decode thread: `DecoderWorkers` counts threads by that name.
        let convertName = "rgba" + name.drop { $0 != " " }
        let converting = Thread { [self] in
            DecoderWorkers.nameThisThread(convertName)
            let converter = ConvertLoop(isLive: isLive, width: width, height: height, fitsWhole: fitsWhole, fit: source.fit ?? .cover,
                                        clock: clock, toneMap: source.toneMap,
                                      decoded: decoded, queue: queue, spares: spares, skip: skip)
            converter.run()
            progress.withLock { $0.finished += 1 }
            done.signal()
        }
        converting.name = convertName
        thread.start()
        converting.start()
    }

    /// The next event, waiting for the thread if it has none yet; it stays queued until
    /// `dropNext()`, so a picture whose time has not come is held only once, in the queue.
    func peek() -> DecodedEvent { queue.peek() ?? .end }

    /// The next event, waiting for the thread until `deadline`; nil if none came by then. The
    /// queue is closed only by `stop()`, after which nobody peeks.
    func peek(until deadline: Date) -> DecodedEvent? { queue.peek(until: deadline) }

    /// The next event, waiting until `deadline` (nil: as long as it takes); nil then, or once
    /// `interruption` is requested.
    func peek(until deadline: Date?, unless interruption: RenderInterruption?) -> DecodedEvent? {
        queue.peek(until: deadline, unless: interruption)
    }

    /// The next event if there is one now, left queued.
    func peekNow() -> DecodedEvent? { queue.tryPeek() }

    /// Removes the event the last peek returned, making room for the thread's next picture.
    func dropNext() { _ = queue.tryTake() }

    /// Tells the convert thread that live pictures of time line `epoch` older than `time` are
    /// late: they are passed over without being converted (`dropped` counts them).
    func skip(before time: Double, epoch: Int) { skip.set(time, epoch: epoch) }

    /// Live pictures passed over without being converted.
    var skipped: Int { skip.count }

    /// Hands back a picture the player has stopped showing, for the thread to convert its next
    /// frame into. Give it before `dropNext()`, which wakes the thread to convert.
    func recycle(_ picture: RGBAImage) { spares.put(picture) }

    /// Stops the threads. Returns once both have ended and freed every FFmpeg object, or after
    /// `stopWait` if the decode thread is still unwinding a network call (it frees them as it
    /// ends). Returns whether both had finished. Safe to call more than once.
    @discardableResult
    func stop() -> Bool {
        let first: Bool = progress.withLock { progress in
            defer { progress.stopped = true }
            return !progress.stopped
        }
        if first {
            gate.requestStop()
            watchGate.requestStop()
            reach.release()
            decoded.close()
            queue.close()
            let deadline = DispatchTime.now() + DecodeThread.stopWait
            for _ in 0..<DecodeThread.threads { _ = done.wait(timeout: deadline) }
        }
        return progress.withLock { $0.finished == DecodeThread.threads }
    }
}

/// How long a WebRTC source's packets wait in its jitter buffer (ms), as its session last said:
/// asked once a second by the decode thread (the session asks webrtcbin for its stats), read by
/// the player for its `stop` (`jitter_buffer_ms`).
final class JitterBufferDepth: Sendable {
    private let state = Mutex<(milliseconds: Double?, askedAt: Double)>((nil, -.infinity))

    var milliseconds: Double? { state.withLock { $0.milliseconds } }

    /// Asks `decoder`'s session again if a second has passed since the last time (monotonic `now`).
    func update(at now: Double, from decoder: MediaDecoder) {
        guard state.withLock({ now - $0.askedAt >= 1 }) else { return }
        let depth = decoder.jitterBufferMs()
        state.withLock { $0 = (depth ?? $0.milliseconds, now) }
    }
}
