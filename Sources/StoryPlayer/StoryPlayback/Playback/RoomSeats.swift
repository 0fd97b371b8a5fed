import Compositor
import StoryBase
import StoryMedia
import StoryModel
import StoryTrace

/// Who is in a room on screen: a seat per participant (its sound thread, what its source is,
/// whether it failed or left, its pin) and the order they rank in, large first. Only this type
/// changes a seat; the room reads them.
struct RoomSeats {
    /// One participant's audio player and what is known of it.
    struct Seat {
        let participant: RoomParticipant
        let audioPlayer: Int
        /// The participant's sound thread: it probes, opens and reads the source off the render
        /// thread. It runs while the room is on screen, failed or not, and stops with it.
        let sound: ParticipantSound
        /// The thread has said what the source is (below), or that it failed to open.
        fileprivate(set) var opened = false
        /// The source has an audio stream (a participant without one is shown muted).
        fileprivate(set) var hasSound = false
        fileprivate(set) var hasVideo = false
        fileprivate(set) var failed = false
        /// A recorded participant's end on the room's clock (its file's length); nil for a live
        /// one, or a file that does not say.
        fileprivate(set) var endsAt: Double?
        /// Its recording has ended: it has left the room (below).
        fileprivate(set) var left = false
        /// Its audio player has been stopped, once the room had measured its sound to the end.
        fileprivate(set) var soundStopped = false
        fileprivate(set) var pinned: Bool
        /// When the script pinned it, counted up (0 for a storyboard's own `pinned`): of two
        /// pinned participants, the later pin is large.
        fileprivate(set) var pinSerial = 0
        fileprivate(set) var avatar: RGBAImage?
        /// The picture's shape as the probe found it (`ParticipantFacts.videoSize`).
        fileprivate(set) var videoSize: (width: Int, height: Int)?

        /// Failed or left: no longer heard or seen, so it ranks as neither speaking nor having
        /// video or sound, and gives the large area up.
        var gone: Bool { failed || left }
        /// What the large area's prepared content shows, for the painter's key.
        var contentVersion: Int { (failed ? 1 : 0) + (avatar != nil ? 2 : 0) }
    }

    private(set) var all: [Seat]
    /// Participant indexes, large first.
    private(set) var order: [Int]
    /// Pins the script has made in this play (and before it: `pinOrder`), for `pinSerial`.
    private var pinsMade: Int
    private let storyID: String
    private let trace: LifecycleTrace
    private let waits: Bool

    /// Every participant's thread starts at once, so the sources open side by side. With the
    /// virtual clock the room waits for each to say what it is (bounded by the open timeout),
    /// so its first decisions are those of every run; with the realtime clock it never waits: a
    /// participant joins the order when its thread has opened it.
    init(_ participants: [RoomParticipant], storyID: String, at t: Double, limits: DecodeLimits, waits: Bool,
         interruption: RenderInterruption?, pins: [String: Bool], pinOrder: [String], trace: LifecycleTrace) {
        self.storyID = storyID
        self.trace = trace
        self.waits = waits
        all = participants.map { participant in
            let id = trace.nextPlayerID()
            trace.record(.play, t: t, story: storyID, player: id, participant: participant.id, media: "audio")
            let sound = ParticipantSound(participant: participant, limits: limits, waits: waits, interruption: interruption,
                                         name: "sound #\(id) \(storyID)")
            return Seat(participant: participant, audioPlayer: id, sound: sound, pinned: pins[participant.id] ?? participant.pinned)
        }
        for (serial, participant) in pinOrder.enumerated() {
            for index in all.indices where all[index].participant.id == participant { all[index].pinSerial = serial + 1 }
        }
        pinsMade = pinOrder.count
        order = Array(all.indices)
    }

    subscript(index: Int) -> Seat { all[index] }

    /// The seat of the participant `id`.
    func index(of id: String) -> Int? { all.firstIndex { $0.participant.id == id } }

    /// A screen share is there (it makes any layout a presentation).
    var hasScreenShare: Bool { all.contains { $0.participant.screenshare && !$0.gone } }

    /// The participants' picture shape (width / height): the first that the probe measured.
    var videoAspect: Double? {
        all.first { !$0.participant.screenshare && $0.videoSize != nil }?.videoSize.map { Double($0.width) / Double($0.height) }
    }

    // MARK: - Joining

    /// Takes in what each participant's thread found when it opened the source: waited for
    /// with the virtual clock, only what has come with the realtime clock. A source that could
    /// not be opened is traced as failed at `t`.
    mutating func admitOpened(at t: Double) {
        for index in all.indices where !all[index].opened {
            // The avatar comes first, so a participant shows its face while its source opens
            // (the realtime clock draws frames meanwhile).
            if !waits, all[index].avatar == nil { all[index].avatar = all[index].sound.loadedAvatar }
            guard let result = all[index].sound.open(waiting: waits) else { continue }
            all[index].opened = true
            // The thread stores the avatar before it says how the source opened, so it is final
            // now, failed or not: the virtual clock's frames do not depend on a race.
            all[index].avatar = all[index].sound.loadedAvatar
            switch result {
            case .success(let facts):
                all[index].hasSound = facts.hasSound
                all[index].hasVideo = facts.hasVideo
                all[index].endsAt = facts.duration
                all[index].videoSize = facts.videoSize
            case .failure(let error):
                fail(index, because: error.description, at: t)
            }
        }
    }

    mutating func setPinned(_ participant: String, _ pinned: Bool) {
        if pinned { pinsMade += 1 }
        for index in all.indices where all[index].participant.id == participant {
            all[index].pinned = pinned
            all[index].pinSerial = pinned ? pinsMade : 0
        }
    }

    // MARK: - Failing and leaving

    /// The participant's video player failed: it shows its avatar with the error mark.
    mutating func fail(_ index: Int) { all[index].failed = true }

    private mutating func fail(_ index: Int, because error: String, at t: Double) {
        all[index].failed = true
        trace.record(.failed, t: t, story: storyID, player: all[index].audioPlayer, error: error,
                     participant: all[index].participant.id, media: "audio")
    }

    /// Traces a live participant's reconnect tries, and a participant whose sound failed after
    /// it opened (a recorded source that stalls past the read timeout or breaks, a live one
    /// past its retries) as failed, at `t`; the room goes on without its sound.
    mutating func noteSoundFailures(at t: Double) {
        for index in all.indices {
            for (attempt, reason) in all[index].sound.takeReconnects() {
                trace.record(.reconnect, t: t, story: storyID, player: all[index].audioPlayer, error: reason, attempt: attempt,
                             participant: all[index].participant.id, media: "audio")
            }
            guard let error = all[index].sound.takeFailure() else { continue }
            fail(index, because: error.description, at: t)
        }
    }

    /// A recorded participant whose file has played to its end by media time `local` has left
    /// the room, as a caller who hangs up leaves a call: the large area goes to someone still
    /// there. Decided by the file's length, not by when its threads noticed the end, so every
    /// run and every shard decides at the same frame.
    mutating func noteLeaving(at local: Double) {
        for index in all.indices where !all[index].left {
            if let end = all[index].endsAt, local >= end - 1e-9 { all[index].left = true }
        }
    }

    /// Stops, at `t`, the audio player of each participant who has left once the room has
    /// measured its sound to the end (`measuredUntil`), as any player whose item has ended: not
    /// kept alive with a finished file until the room leaves the screen. Not at the leaving
    /// frame itself: the 100 ms window holding the file's end is often measured a frame later,
    /// and a sound closed before would measure it from whatever had been taken, which differs
    /// between a render that mixes sound and a shard's fast-forward that does not.
    mutating func stopSoundOfThoseWhoLeft(measuredUntil: Double, at t: Double) {
        for index in all.indices where all[index].left && !all[index].soundStopped {
            guard let end = all[index].endsAt, measuredUntil >= end - 1e-9 else { continue }
            all[index].soundStopped = true
            all[index].sound.close()
            trace.record(.stop, t: t, story: storyID, player: all[index].audioPlayer,
                         participant: all[index].participant.id, media: "audio")
        }
    }

    // MARK: - Who is large

    /// Stream's default comparators: pinned (the latest pin first), screen sharing, dominant
    /// speaker, speaking, has video, has audio, id. The sort starts from the previous order and
    /// is stable. A participant that failed or left (`Seat.gone`) is no longer heard, so it is
    /// neither the dominant speaker nor speaking, nor has video or sound: an audit's dominant
    /// camera that failed kept the large area, its avatar with the error mark, for the rest of
    /// the room beside a working camera in the strip; a recording that ended kept it with its
    /// last picture frozen, as the viewer's only moving picture played in the strip's place.
    mutating func sort(by listening: RoomListening) {
        let keys = all.map { seat in
            [seat.pinned, (seat.participant.screensharing || seat.participant.screenshare) && !seat.gone,
             listening.dominant == seat.participant.id && !seat.gone,
             listening.isSpeaking(seat.participant.id) && !seat.gone, seat.hasVideo && !seat.gone, seat.hasSound && !seat.gone]
        }
        let previous = order
        order = previous.enumerated().sorted { a, b in
            let (first, second) = (all[a.element], all[b.element])
            if first.pinned, second.pinned, first.pinSerial != second.pinSerial { return first.pinSerial > second.pinSerial }
            for (x, y) in zip(keys[a.element], keys[b.element]) where x != y { return x }
            let ids = (all[a.element].participant.id, all[b.element].participant.id)
            return ids.0 != ids.1 ? ids.0 < ids.1 : a.offset < b.offset
        }.map(\.element)
    }

    /// Why `index` is large in a spotlight: the first of Stream's comparators it wins on.
    func largeReason(_ index: Int, dominant: String?) -> String {
        let id = all[index].participant.id
        if all[index].pinned { return "\(id) is pinned" }
        if all[index].participant.screenshare { return "\(id) is a screen share" }
        if all[index].participant.screensharing { return "\(id) shares a screen" }
        if dominant == id { return "\(id) is the dominant speaker" }
        return "\(id) ranks first"
    }

    // MARK: - Stop

    /// Stops every participant's sound thread and audio player at `t`.
    mutating func close(at t: Double) {
        for seat in all { seat.sound.requestStop() }
        for index in all.indices {
            all[index].sound.close()
            // One that left may have been stopped already.
            let seat = all[index]
            guard !seat.soundStopped else { continue }
            trace.record(.stop, t: t, story: storyID, player: seat.audioPlayer, participant: seat.participant.id, media: "audio")
        }
        all.removeAll()
    }
}
