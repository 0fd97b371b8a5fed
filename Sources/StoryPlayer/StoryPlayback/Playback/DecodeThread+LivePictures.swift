import Compositor
import StoryBase
import StoryLive
import StoryMedia
import StoryModel

/// What only a live picture does on its way to the player: a new time line at a reconnect or a
/// jump, its sound, its release on the stream's cadence, the edge.
extension DecodeThread.Worker {
    /// Whether a picture at `written`, decoded on a reopened segment source before its first new
    /// one, was already passed on before the reconnect (`LiveReplay`). Pushed sources send only
    /// what is new, and a recorded play does not reconnect.
    func wasShown(written: Double, _ carried: Carried) -> Bool {
        let replaysOnReopen = live?.comesInSegments == true
        return replaysOnReopen && carried.timeline.awaitsFirstPictureAfterReconnect
            && carried.replay.wasShown(written: written, frame: carried.timeline.frameDuration,
                                       reach: LiveReplay.reach(suggested: edge.suggestedTarget, target: limits.latency.target))
    }

    /// A live picture at media time `time`: a new time line if it starts one, its sound, and
    /// the time it is released at on the stream's cadence; nil once the play is over.
    func passLive(_ picture: DecodedPicture, at time: Double, written: Double, from decoder: MediaDecoder,
                  backlog: inout PushBacklog, carried: inout Carried) -> Double? {
        // A new connection starts a new time line, and so does a jump in the
        // timestamps; the player's clock starts again at this picture.
        let jumped = carried.timeline.jumps(to: time)
        let arrived = LiveEdge.now()
        jitterBuffer.update(at: arrived, from: decoder)
        if carried.timeline.awaitsFirstPictureAfterReconnect || jumped {
            guard startTimeLine(jumped: jumped, arrived: arrived, written: written, backlog: &backlog, carried: &carried) else {
                return nil
            }
        }
        carried.discontinuity.arrived(at: arrived)
        carried.replay.passedOn(written: written)
        carried.reconnection.delivered()
        passSound(from: decoder, at: picture.time, carried.timeline)
        // Released on the stream's cadence once it is clear: timestamps that
        // jitter around a steady rate would make two pictures due in one frame
        // and none in the next. The raw time stays the one jumps are measured from.
        let (released, change) = carried.cadence.release(time)
        // The edge first: the put may wait for room, and the player asks the edge
        // meanwhile whether a newer picture is on its way.
        edge.pictureArrived(time: released, written: written, epoch: edge.epoch, now: arrived)
        if let change { guard queue.put(.cadence(change)) else { return nil } }
        return released
    }

    /// Starts a new time line at a picture that `arrived` (`jumped`: within the connection, else
    /// on a new one) and is at `written` in the source's time: a new epoch, said to the player
    /// (`DecodedEvent.discontinuity`), and a new cadence. False once the play is over.
    private func startTimeLine(jumped: Bool, arrived: Double, written: Double,
                               backlog: inout PushBacklog, carried: inout Carried) -> Bool {
        // A picture held from the opening burst belongs to the line before.
        guard queueAll(backlog.flush()) else { return false }
        let epoch = edge.newEpoch()
        let returnGap = carried.discontinuity.returnGap(arrived: arrived, jumped: jumped, isPushed: live?.isPushed == true)
        // Said in the source's own timestamps: the play's media time runs on
        // across a reconnect, and would say only that one picture followed another.
        let event = DecodedEvent.discontinuity(epoch: epoch, from: carried.replay.lastWritten ?? carried.timeline.lastTime, to: written,
                                               reconnected: !jumped, returnGap: returnGap)
        guard queue.put(event) else { return false }
        carried.cadence = FrameCadence()
        // A publisher that came back on the same connection (nginx-rtmp keeps
        // its viewers through a restart) starts with what its encoder and the
        // network held, as a new connection does: passed over, so the new
        // session starts at its newest picture.
        if jumped, returnGap != nil {
            skip.count(passedOver: backlog.passedOver)
            backlog = PushBacklog(isPushed: true)
        }
        return true
    }

    /// The sound heard up to a picture at `time` (its own timestamp), on its time line.
    private func passSound(from decoder: MediaDecoder, at time: Double, _ timeline: PlayTimeline) {
        let shift = timeline.soundShift(at: time)
        for var block in decoder.takeSound() {
            block.time += shift
            sound.append(block, epoch: edge.epoch)
        }
    }
}
