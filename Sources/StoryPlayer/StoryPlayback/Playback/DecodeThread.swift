import Compositor
import Foundation
import StoryBase
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
            let worker = Worker(source: source, isLive: isLive, keepsSound: keepsSound, limits: playing, clock: clock, gate: gate,
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
            let converter = ConvertLoop(isLive: isLive, width: width, height: height, fitsWhole: fitsWhole, clock: clock, toneMap: source.toneMap,
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

/// The decode loop, owned by the decode thread. It hands pictures to the convert thread as
/// decoded (`.decoded`), and every other event through the same queue, in order.
private struct Worker {
    let source: MediaSource
    let isLive: Bool
    /// Whether a live source's sound is decoded for `sound` (not for a room's video player: the
    /// room hears each participant on a thread of its own, `ParticipantSound`).
    let keepsSound: Bool
    let limits: DecodeLimits
    let clock: StageClock?
    let gate: InterruptGate
    let reception: SourceReception
    let edge: LiveEdge
    let jitterBuffer: JitterBufferDepth
    let sound: LiveSound
    /// Counts the pictures of a pushed source's opening burst passed over here (`PushBacklog`).
    let skip: SkipBefore
    let reach: DecodeReach
    let queue: BoundedQueue<DecodedEvent>
    let started: UInt64
    let startAt: Double
    let playlistName: String
    let watchGate: InterruptGate
    /// What a recorded source of sound only shows, and the size of the card it may draw.
    let still: SoundOnlyStill?
    let canvas: (width: Int, height: Int)

    /// How far a live picture's timestamp may stray from where the last one leads before it
    /// counts as a jump (`discontinuity`): more than any frame interval or B-frame reordering.
    static let discontinuityThreshold = 1.0

    /// How long a pushed stream may bring no picture before a jump in its timestamps is a new
    /// session (a publisher that went away and came back) rather than a jump within one (a
    /// looped file, a segment that starts its timestamps again): far more than any frame
    /// interval or network jitter, far less than a restart takes.
    static let sessionGap = 0.5

    func milliseconds(since start: UInt64, to end: UInt64 = InterruptGate.now()) -> Double {
        Double(end &- start) / 1e6
    }

    /// Frees the decoder, charging what its own threads used since the last picture first.
    func close(_ decoder: MediaDecoder) {
        chargeWorkers(of: decoder)
        decoder.close()
    }

    /// Charges the CPU time the decoder's own threads (frame threads) used since the last charge
    /// to the decode stage. Done after every picture, so that a summary written while this thread
    /// is still unwinding (`stop()` waits only `stopWait` for it) misses at most the last picture's.
    func chargeWorkers(of decoder: MediaDecoder) {
        clock?.add(.decode, decoder.takeWorkerCPUSeconds())
    }

    /// Opens the source. A live HLS playlist is read once just before, so the segment the
    /// demuxer starts at is known, and then watched beside it (`PlaylistWatch`).
    func open(epoch: Int) throws(MediaError) -> (MediaDecoder, PlaylistWatch?) {
        // Bounded well inside the open timeout: a server too slow to answer within it gets no
        // watch (the offset is then estimated from the pictures), not a doubled wait.
        let playlist = isLive && source.isRemote && LiveSourceKind(source) == .hls ? try firstListing() : nil
        let seen = LiveEdge.now()
        // Opening reads the stream information, which decodes a few frames: decode work.
        let decoder = try clock.measure(.decode) { () throws(MediaError) in
            try MediaDecoder(source: source, limits: limits, gate: gate, isLive: isLive, reception: reception, listing: playlist)
        }
        decoder.decodesSound = isLive && keepsSound
        if decoder.decodesSound {
            let sound = sound
            // A new connection's timestamps start where its publisher's do: the last one's sound
            // before video would only be mistaken for its.
            sound.drop(epoch: LiveSound.beforeVideo)
            decoder.hearsBeforeVideo = { blocks in
                for block in blocks { sound.append(block, epoch: LiveSound.beforeVideo) }
            }
        }
        var watch = playlist.map {
            PlaylistWatch(url: $0.url, first: $0.playlist, seenAt: seen,
                          start: decoder.partStart?.sequence ?? $0.playlist.sequence(openedFirstAmong: decoder.openedURLs),
                          offsetInSegment: decoder.partStart?.offsetInSegment ?? 0, epoch: epoch, edge: edge,
                          gate: watchGate, timeout: limits.timeouts.open, name: playlistName)
        }
        if isLive, source.isRemote, LiveSourceKind(source) == .dash {
            watch = PlaylistWatch(dash: source.ffmpegURL, clockOffset: decoder.dashClockOffset, edge: edge, gate: watchGate,
                                  timeout: limits.timeouts.open, name: playlistName)
        }
        return (decoder, watch)
    }

    /// A live HLS playlist as FFmpeg will read it (`PlaylistWatch.fetchMedia`), or nil. One that
    /// lists no segment yet, a broadcast about to start, is read again until it lists one, for
    /// up to `timeouts.open`, as a phone's player waits: FFmpeg's demuxer takes it for a stream
    /// without video that has ended, and the item failed after its reconnects, in under two
    /// seconds, saying the stream was lost.
    private func firstListing() throws(MediaError) -> (url: String, playlist: HLSPlaylist)? {
        // Each read bounded well inside the open timeout: a server too slow to answer within it
        // gets no watch (the offset is then estimated from the pictures), not a doubled wait.
        let readLimit = min(limits.timeouts.open / 2, PlaylistWatch.firstFetchLimit)
        let deadline = ContinuousClock.now + .seconds(limits.timeouts.open)
        while true {
            guard let fetched = PlaylistWatch.fetchMediaOrHead(source.ffmpegURL, gate: watchGate, timeout: readLimit) else { return nil }
            guard fetched.playlist.awaitsFirstSegment else { return fetched.playlist.lists ? fetched : nil }
            let wait = fetched.playlist.rereadInterval
            guard ContinuousClock.now + .seconds(wait) < deadline else {
                throw MediaError(.timeout, "no segment listed within \(ObjectReader.format(limits.timeouts.open)) s in \(source): "
                                 + "the broadcast has not started")
            }
            guard gate.sleep(seconds: wait) else { return nil }
        }
    }

    /// A source of sound only: its one picture (`SoundOnlyStill`), shown from media time 0 for
    /// as long as the sound lasts (`ItemLength`), then the end of its data. The player reads
    /// the sound from the file itself (`ItemAudio`), as it does a video's; the first-frame
    /// spans are those of that picture, which shows when the sound starts.
    private func show(_ still: SoundOnlyStill, over decoder: MediaDecoder) {
        let openMs = milliseconds(since: started)
        var facts = MediaFacts(decoder, isLive: false)
        let (choice, picture) = clock.measure(.decode) { still.picture(over: decoder, limits: limits, width: canvas.width, height: canvas.height) }
        facts.soundOnlyPicture = choice
        guard queue.put(.opened(facts)) else { return }
        switch picture {
        case .decoded(let decoded, let firstPacketAt):
            let packet = firstPacketAt.map { milliseconds(since: started, to: $0) } ?? openMs
            let spans = FirstFrameSpans(openMs: openMs, firstPacketMs: packet, firstFrameMs: milliseconds(since: started))
            guard queue.put(.decoded(time: 0, picture: decoded, spans: spans)) else { return }
        case .drawn(let image):
            // Drawn at the canvas's size already: the convert thread passes it on as it is.
            let spans = FirstFrameSpans(openMs: openMs, firstPacketMs: openMs, firstFrameMs: milliseconds(since: started))
            guard queue.put(.picture(time: 0, image: image, spans: spans)) else { return }
        }
        queue.put(.end)
    }

    func run() {
        var decoder: MediaDecoder
        var watch: PlaylistWatch?
        // A shard's player that starts mid-item opens its source again (the shard before opened
        // it too): what that costs is the shard's opening (`ShardCost`).
        let openingFrom = StageClock.threadCPUSeconds()
        do {
            (decoder, watch) = try open(epoch: edge.epoch)
        } catch {
            queue.put(.failed(error))
            return
        }
        defer { watch?.retire(waitingUpTo: 0.5) }
        if startAt > 0 { clock?.addShardCost(.opening, seconds: StageClock.threadCPUSeconds() - openingFrom) }
        if decoder.isSoundOnly, let still {
            defer { close(decoder) }
            return show(still, over: decoder)
        }
        let forwards = startAt > 0 && !decoder.isStill && !isLive
        if forwards {
            let seekingFrom = StageClock.threadCPUSeconds()
            do {
                try clock.measure(.decode) { () throws(MediaError) in try decoder.seek(to: startAt) }
            } catch {
                queue.put(.failed(error))
                close(decoder)
                return
            }
            clock?.addShardCost(.seeking, seconds: StageClock.threadCPUSeconds() - seekingFrom)
            decoder.dropUnneededPictures(before: startAt)
        }
        var forward = ForwardPass(startAt: forwards ? startAt : nil)
        defer {
            clock?.addShardCost(.decodingForward, count: forward.passedOver, seconds: forward.passedOverSeconds)
            clock?.addShardSavings(droppable: decoder.droppablePackets)
        }
        let openMs = milliseconds(since: started)
        let facts = MediaFacts(decoder, isLive: isLive)
        queue.put(.opened(facts))
        var reconnection = LiveReconnection(limit: limits.timeouts.retries)
        var spansSent = false
        // Media time keeps running across reconnects: each connection's timestamps are rebased.
        var timeOffset = 0.0
        var connectionFirstTime: Double?
        /// The first picture decoded on this connection (a DASH picture's place in its period is
        /// counted from it); before `connectionFirstTime` when a reopen sent pictures again.
        var connectionStart: Double?
        var replay = LiveReplay()
        let replaysOnReopen = isLive && LiveSourceKind(source) != .push
        var lastTime = 0.0
        /// The time of the last picture decoded, for the reach (nil before the first).
        var decodedTime: Double?
        var frameDuration = facts.frameDuration
        /// When the last live picture was decoded (monotonic seconds): how long a publisher was away.
        var lastArrival: Double?
        /// The cadence live pictures are released on (`FrameCadence`), one per time line.
        var cadence = FrameCadence()
        defer { close(decoder) }
        while !gate.isStopped {
            let failure: MediaError?
            do {
                var backlog = PushBacklog(isPushed: isLive && LiveSourceKind(source) == .push)
                defer { skip.count(passedOver: backlog.passedOver) }
                while !gate.isStopped {
                    // A recorded play decodes no picture past the first beyond its foreseen end.
                    if !isLive, !reach.waitForRoom(after: decodedTime, gate: gate) { return }
                    let decodingFrom = StageClock.threadCPUSeconds()
                    let picture = try decoder.nextPicture()
                    // Charged here rather than through `measure`, so the shard's decoding forward
                    // can be told the same seconds.
                    let decodeSeconds = StageClock.threadCPUSeconds() - decodingFrom + decoder.takeWorkerCPUSeconds()
                    clock?.add(.decode, decodeSeconds)
                    guard let picture else {
                        for held in backlog.flush() {
                            guard queue.put(.decoded(time: held.time, picture: held.picture, spans: held.spans)) else { return }
                        }
                        break
                    }
                    if connectionStart == nil { connectionStart = picture.time }
                    // Where the picture is on the time line its edge is measured on: a DASH
                    // manifest's period (from where its first segment starts), else the
                    // timestamps as the source wrote them.
                    let written = decoder.periodStart.map { $0 + picture.time - (connectionStart ?? picture.time) }
                        ?? picture.time + decoder.videoStartSeconds
                    if replaysOnReopen, reconnection.tries > 0, connectionFirstTime == nil,
                       replay.wasShown(written: written, frame: frameDuration,
                                       reach: LiveReplay.reach(suggested: edge.suggestedTarget, target: limits.latency.target)) {
                        // Seen before the reconnect: neither the picture nor its sound again.
                        _ = decoder.takeSound()
                        continue
                    }
                    let time = timeOffset + picture.time - (reconnection.tries > 0 ? connectionFirstTime ?? picture.time : 0)
                    var released = time
                    if isLive {
                        // A new connection starts a new time line, and so does a jump in the
                        // timestamps; the player's clock starts again at this picture.
                        let jumped = connectionFirstTime != nil
                            && abs(time - (lastTime + frameDuration)) > Worker.discontinuityThreshold
                        let arrived = LiveEdge.now()
                        jitterBuffer.update(at: arrived, from: decoder)
                        if (connectionFirstTime == nil && reconnection.tries > 0) || jumped {
                            // A picture held from the opening burst belongs to the line before.
                            for held in backlog.flush() {
                                guard queue.put(.decoded(time: held.time, picture: held.picture, spans: held.spans)) else { return }
                            }
                            let epoch = edge.newEpoch()
                            // A pushed source back after a gap (a publisher that restarted), on a
                            // new connection or the same one: a new session. Not a segment
                            // source's: a playlist that stalled is read again from pictures already
                            // shown (`LiveReplay`), and the target its rebuffer raised is what keeps
                            // the next stall from being one. Nor the first picture of a play that
                            // came only after a reconnect: that is the start.
                            let returnGap = lastArrival.map { arrived - $0 }.flatMap { gap in
                                LiveSourceKind(source) == .push && (!jumped || gap >= Worker.sessionGap) ? gap : nil
                            }
                            // Said in the source's own timestamps: the play's media time runs on
                            // across a reconnect, and would say only that one picture followed another.
                            let event = DecodedEvent.discontinuity(epoch: epoch, from: replay.lastWritten ?? lastTime, to: written,
                                                                   reconnected: !jumped, returnGap: returnGap)
                            guard queue.put(event) else { return }
                            cadence = FrameCadence()
                            // A publisher that came back on the same connection (nginx-rtmp keeps
                            // its viewers through a restart) starts with what its encoder and the
                            // network held, as a new connection does: passed over, so the new
                            // session starts at its newest picture.
                            if jumped, returnGap != nil {
                                skip.count(passedOver: backlog.passedOver)
                                backlog = PushBacklog(isPushed: true)
                            }
                        }
                        lastArrival = arrived
                        replay.passedOn(written: written)
                        // The sound heard up to this picture, on its time line.
                        let shift = timeOffset - (reconnection.tries > 0 ? connectionFirstTime ?? picture.time : 0)
                        for var block in decoder.takeSound() {
                            block.time += shift
                            sound.append(block, epoch: edge.epoch)
                        }
                        // Released on the stream's cadence once it is clear: timestamps that
                        // jitter around a steady rate would make two pictures due in one frame
                        // and none in the next. The raw time stays the one jumps are measured from.
                        let (cadenced, change) = cadence.release(time)
                        released = cadenced
                        // The edge first: the put may wait for room, and the player asks the edge
                        // meanwhile whether a newer picture is on its way.
                        edge.pictureArrived(time: released, written: written, epoch: edge.epoch, now: arrived)
                        if let change { guard queue.put(.cadence(change)) else { return } }
                    }
                    if connectionFirstTime == nil { connectionFirstTime = picture.time }
                    lastTime = time
                    decodedTime = time
                    var spans: FirstFrameSpans?
                    if !spansSent {
                        spansSent = true
                        // Now that a picture's size is known, a recorded play may decode ahead
                        // into its budget (`DecodeLimits.decodeAheadBytes`). A live play keeps
                        // one: its pictures come no faster than they are shown.
                        if !isLive { queue.setCapacity(limits.picturesAhead(each: picture.byteCount)) }
                        let packet = decoder.firstPacketAt.map { milliseconds(since: started, to: $0) } ?? openMs
                        spans = FirstFrameSpans(openMs: openMs, firstPacketMs: packet, firstFrameMs: milliseconds(since: started))
                    }
                    // Live pictures wait for room as a file's do: a segment's burst is played on
                    // its own clock, not thinned to its last picture. Catching up is the
                    // player's call (`LivePlayhead`), by passing pictures over unconverted.
                    forward.count(time: time, seconds: decodeSeconds)
                    for next in backlog.take(PushBacklog.Picture(time: released, picture: picture, spans: spans), now: LiveEdge.now()) {
                        guard queue.put(.decoded(time: next.time, picture: next.picture, spans: next.spans)) else { return }
                    }
                    if decoder.isStill {
                        queue.put(.end)
                        return
                    }
                }
                failure = decoder.lastReadError.map { decoder.inputFailure ?? MediaError(.read, "the connection failed", averror: $0) }
            } catch {
                failure = error
            }
            if gate.isStopped { return }
            guard isLive else {
                // Recorded items do not reconnect: a network error fails them, a clean end ends them.
                if let failure, source.isRemote || !spansSent {
                    queue.put(.failed(failure))
                } else {
                    queue.put(.end)
                }
                return
            }
            // A playlist that says it has ended (`#EXT-X-ENDLIST`, or a DASH manifest that turned
            // static) ends the item. A local HLS playlist has no watch, so it is read once more
            // here (found in review, a finished one was reopened as a stall and its segments
            // played again at each try, then failed). A remote one is not: its watch says so, and
            // a server that stopped answering would hold the first reconnect up to two reads.
            if failure == nil, edge.hasEnded || decoder.inputEnded
                || (!source.isRemote && LiveSourceKind(source) == .hls
                    && PlaylistWatch.saysEnded(source, gate: gate, timeout: limits.timeouts.read)) {
                queue.put(.end)
                return
            }
            // A live stream has no natural end: whatever stopped it, reconnect (`LiveReconnection`).
            let reason: any Error & Sendable = failure
                ?? ErrorText(decoder.formatName == "hls" ? "the playlist stopped changing (stalled)" : "the stream ended")
            let outcome = reconnection.reopen(after: reason, gate: gate) { attempt, reason in
                queue.put(.reconnect(attempt: attempt, reason: reason))
            } open: { () throws(MediaError) in
                watch?.retire(waitingUpTo: 0.5)
                watch = nil
                let (reopened, reopenedWatch) = try open(epoch: edge.epoch + 1)
                watch = reopenedWatch
                return reopened
            }
            let next: MediaDecoder
            switch outcome {
            case .reopened(let reopened): next = reopened
            case .stopped: return
            case .lost(let lost):
                queue.put(.failed(lost))
                return
            }
            close(decoder)
            decoder = next
            timeOffset = lastTime + frameDuration
            connectionFirstTime = nil
            connectionStart = nil
            frameDuration = decoder.frameRate > 0 ? 1 / decoder.frameRate : frameDuration
        }
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
