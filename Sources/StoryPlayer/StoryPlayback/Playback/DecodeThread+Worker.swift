import Compositor
import StoryBase
import StoryLive
import StoryMedia
import StoryModel

extension DecodeThread {
    /// The decode loop, owned by the decode thread. It hands pictures to the convert thread as
    /// decoded (`.decoded`), and every other event through the same queue, in order.
    ///
    /// Its steps are named, mpv's `run_playloop` style: open (`+Opening`), decode a connection
    /// picture by picture (`+Pictures`, and `+LivePictures` for what only a live picture does),
    /// and at a connection's end, end the play or reconnect (`+Reconnect`). What it carries
    /// from picture to picture is `Carried`, each concern in a type of its own.
    struct Worker {
        let source: MediaSource
        let isLive: Bool
        /// How a live source's protocol reads it (`LiveSource`); nil for a recorded one.
        let live: (any LiveSource)?
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

        /// The source as opened: its decoder, and a live playlist's watch beside it.
        struct Connection {
            var decoder: MediaDecoder
            var watch: PlaylistWatch?
        }

        /// What the loop carries from picture to picture, and across a live play's reconnects.
        struct Carried {
            /// How long opening took, for the first picture's spans.
            let openMs: Double
            /// A shard's pictures before its start (`ShardCost`).
            var forward: ForwardPass
            var reconnection: LiveReconnection
            var timeline: PlayTimeline
            var replay = LiveReplay()
            var discontinuity = LiveDiscontinuity()
            /// The cadence live pictures are released on (`FrameCadence`), one per time line.
            var cadence = FrameCadence()
            /// Whether the first picture's spans went out (a recorded play that fails after it
            /// played something ends rather than fails, if its file is local).
            var spansSent = false
        }

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

        func run() {
            // A shard's player that starts mid-item opens its source again (the shard before opened
            // it too): what that costs is the shard's opening (`ShardCost`).
            let openingFrom = StageClock.threadCPUSeconds()
            var connection: Connection
            do {
                let (decoder, watch) = try open(epoch: edge.epoch)
                connection = Connection(decoder: decoder, watch: watch)
            } catch {
                queue.put(.failed(error))
                return
            }
            defer { connection.watch?.retire(waitingUpTo: 0.5) }
            if startAt > 0 { clock?.addShardCost(.opening, seconds: StageClock.threadCPUSeconds() - openingFrom) }
            if connection.decoder.isSoundOnly, let still {
                defer { close(connection.decoder) }
                return show(still, over: connection.decoder)
            }
            guard let forward = seekToStart(of: connection.decoder) else { return }
            let openMs = milliseconds(since: started)
            let facts = MediaFacts(connection.decoder, isLive: isLive, live: live)
            var carried = Carried(openMs: openMs, forward: forward, reconnection: LiveReconnection(limit: limits.timeouts.retries),
                                  timeline: PlayTimeline(frameDuration: facts.frameDuration))
            defer {
                clock?.addShardCost(.decodingForward, count: carried.forward.passedOver, seconds: carried.forward.passedOverSeconds)
                clock?.addShardSavings(droppable: connection.decoder.droppablePackets)
            }
            queue.put(.opened(facts))
            defer { close(connection.decoder) }
            play(&connection, &carried)
        }

        /// Decodes connection after connection until the play ends, fails or is stopped.
        private func play(_ connection: inout Connection, _ carried: inout Carried) {
            while !gate.isStopped {
                guard case .ended(let failure) = decodeAll(from: connection.decoder, &carried) else { return }
                if gate.isStopped { return }
                guard isLive else { return endRecorded(failure: failure, playedFirst: carried.spansSent) }
                if failure == nil, hasEnded(connection.decoder) {
                    queue.put(.end)
                    return
                }
                guard reconnect(&connection, after: failure, &carried) else { return }
            }
        }
    }
}
