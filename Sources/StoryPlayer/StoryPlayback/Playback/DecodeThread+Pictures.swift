import Compositor
import StoryBase
import StoryLive
import StoryMedia
import StoryModel

extension DecodeThread.Worker {
    /// How one connection's decoding ended.
    enum ConnectionEnd {
        /// The play is over (stopped, the queue closed, a still shown, its reach released): say
        /// nothing more.
        case stopped
        /// The source sent no more pictures: cleanly (nil), or failing with the error.
        case ended(MediaError?)
    }

    /// Decodes the connection's pictures and queues them, until it ends.
    func decodeAll(from decoder: MediaDecoder, _ carried: inout Carried) -> ConnectionEnd {
        do {
            var backlog = PushBacklog(isPushed: live?.isPushed == true)
            defer { skip.count(passedOver: backlog.passedOver) }
            while !gate.isStopped {
                // A recorded play decodes no picture past the first beyond its foreseen end.
                if !isLive, !reach.waitForRoom(after: carried.timeline.decodedTime, gate: gate) { return .stopped }
                let (picture, decodeSeconds) = try decodeNext(from: decoder)
                guard let picture else {
                    guard queueAll(backlog.flush()) else { return .stopped }
                    break
                }
                guard pass(picture, decodeSeconds: decodeSeconds, from: decoder, backlog: &backlog, carried: &carried) else {
                    return .stopped
                }
            }
            return .ended(decoder.lastReadError.map { decoder.inputFailure ?? MediaError(.read, "the connection failed", averror: $0) })
        } catch {
            return .ended(error)
        }
    }

    /// The next picture (nil at the end of the data), and the CPU seconds it took to decode.
    /// Charged here rather than through `measure`, so the shard's decoding forward can be told
    /// the same seconds.
    private func decodeNext(from decoder: MediaDecoder) throws(MediaError) -> (DecodedPicture?, Double) {
        let decodingFrom = StageClock.threadCPUSeconds()
        let picture = try decoder.nextPicture()
        let decodeSeconds = StageClock.threadCPUSeconds() - decodingFrom + decoder.takeWorkerCPUSeconds()
        clock?.add(.decode, decodeSeconds)
        return (picture, decodeSeconds)
    }

    /// Takes one decoded picture through the steps and queues it (or holds it, `PushBacklog`);
    /// false once the play is over.
    private func pass(_ picture: DecodedPicture, decodeSeconds: Double, from decoder: MediaDecoder,
                      backlog: inout PushBacklog, carried: inout Carried) -> Bool {
        let written = carried.timeline.written(picture.time, periodStart: live?.timelineStart, videoStart: decoder.videoStartSeconds)
        if wasShown(written: written, carried) {
            // Seen before the reconnect: neither the picture nor its sound again.
            _ = decoder.takeSound()
            return true
        }
        let time = carried.timeline.mediaTime(of: picture.time)
        var released = time
        if isLive {
            guard let cadenced = passLive(picture, at: time, written: written, from: decoder, backlog: &backlog, carried: &carried) else {
                return false
            }
            released = cadenced
        }
        carried.timeline.passed(picture.time, at: time)
        let spans = firstFrameSpans(of: picture, from: decoder, &carried)
        // Live pictures wait for room as a file's do: a segment's burst is played on
        // its own clock, not thinned to its last picture. Catching up is the
        // player's call (`LivePlayhead`), by passing pictures over unconverted.
        carried.forward.count(time: time, seconds: decodeSeconds)
        guard queueAll(backlog.take(PushBacklog.Picture(time: released, picture: picture, spans: spans), now: LiveEdge.now())) else {
            return false
        }
        if decoder.isStill {
            queue.put(.end)
            return false
        }
        return true
    }

    /// The first picture's spans (how long opening, the first packet and the first picture
    /// took), once; nil for every later picture.
    private func firstFrameSpans(of picture: DecodedPicture, from decoder: MediaDecoder, _ carried: inout Carried) -> FirstFrameSpans? {
        guard !carried.spansSent else { return nil }
        carried.spansSent = true
        // Now that a picture's size is known, a recorded play may decode ahead
        // into its budget (`DecodeLimits.decodeAheadBytes`). A live play keeps
        // one: its pictures come no faster than they are shown.
        if !isLive { queue.setCapacity(limits.picturesAhead(each: picture.byteCount)) }
        let packet = decoder.firstPacketAt.map { milliseconds(since: started, to: $0) } ?? carried.openMs
        return FirstFrameSpans(openMs: carried.openMs, firstPacketMs: packet, firstFrameMs: milliseconds(since: started))
    }

    /// Queues pictures, oldest first; false once the queue is closed (the play stopped).
    func queueAll(_ pictures: [PushBacklog.Picture]) -> Bool {
        for held in pictures {
            guard queue.put(.decoded(time: held.time, picture: held.picture, spans: held.spans)) else { return false }
        }
        return true
    }
}
