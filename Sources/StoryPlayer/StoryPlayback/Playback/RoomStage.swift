import Compositor
import Foundation
import StoryBase
import StoryMedia
import StoryModel
import StoryTrace

/// A live room while it is on screen: an audio-only player for every participant, one video
/// player for the participant drawn large (or one a tile of a grid's page or a stage, each at
/// its tile's size), the dominant-speaker decision, the layout, and the picture.
///
/// Created when the room's story plays and closed when it stops, under the same rules as any
/// player: every play of the room makes new players with new ids, and `close` drops them all.
/// Audio players are traced with `"media": "audio"`; the one video player is a plain player, so
/// `check --max-alive` bounds it with the others. A change of the large participant stops the
/// old video player at once and cross-fades from its last picture, so a room never holds two.
/// A grid's or stage's tiles, and a screen share's picture-in-picture camera, are players of
/// `"media": "tile"`: decoded inside the room for the tiles shown, started when a tile shows
/// its participant and stopped when it no longer does (another page, another layout).
package final class RoomStage {
    /// One participant's players and what is known of them.
    struct Seat {
        let participant: RoomParticipant
        let audioPlayer: Int
        /// The participant's sound thread: it probes, opens and reads the source off the render
        /// thread. It runs while the room is on screen, failed or not, and stops with it.
        let sound: ParticipantSound
        /// The thread has said what the source is (below), or that it failed to open.
        var opened: Bool
        /// The source has an audio stream (a participant without one is shown muted).
        var hasSound: Bool
        var hasVideo: Bool
        var failed: Bool
        /// A recorded participant's end on the room's clock (its file's length); nil for a live
        /// one, or a file that does not say.
        var endsAt: Double?
        /// Its recording has ended: it has left the room (below).
        var left = false
        /// Its audio player has been stopped, once the room had measured its sound to the end.
        var soundStopped = false
        /// Failed or left: no longer heard or seen, so it ranks as neither speaking nor having
        /// video or sound, and gives the large area up.
        var gone: Bool { failed || left }
        var pinned: Bool
        /// When the script pinned it, counted up (0 for a storyboard's own `pinned`): of two
        /// pinned participants, the later pin is large.
        var pinSerial = 0
        var avatar: RGBAImage?
        /// The picture's shape as the probe found it (`ParticipantFacts.videoSize`).
        var videoSize: (width: Int, height: Int)?
        /// The content shown while this participant has no video, large or in a tile (made on
        /// first use, and again when it fails, its avatar arrives, or it is shown at another
        /// size: on the realtime clock a participant can be large before its thread has loaded
        /// the avatar).
        var avatarContent: (failed: Bool, hasAvatar: Bool, width: Double, height: Double, picture: RGBAImage)?
        /// What the large area's prepared content shows, for the painter's key.
        var contentVersion: Int { (failed ? 1 : 0) + (avatar != nil ? 2 : 0) }
    }

    static let crossfade = 0.25

    /// How the room is drawn now: the storyboard's or the script's layout, or a presentation
    /// while a screen share is there (the share large and whole, its sharer's camera in a
    /// picture-in-picture tile, the others in the strip), whatever the layout.
    enum Arrangement: String {
        case spotlight, grid, stage, presentation
    }

    let storyID: String
    let trace: LifecycleTrace
    let layout: RoomLayout
    let limits: DecodeLimits
    let clock: StageClock?
    let waits: Bool
    var seats: [Seat]
    /// Participant indexes, large first.
    var order: [Int]
    var speaker = DominantSpeaker()
    /// Media seconds up to which sound has been measured.
    var measuredUntil = 0.0
    var video: (seat: Int, player: ItemPlayer)?
    var shownLarge: Int?
    /// Draws each frame over the last, only what changed (the large area when its picture is
    /// new, the strip's slots whose tile changed).
    var painter: RoomPainter
    /// The last frame when it was a cross-fade's (else the painter's last picture is the last
    /// frame): what a switch of the large participant fades from.
    var lastFaded: RGBAImage?
    var fade: (from: RGBAImage, start: Double)?
    var lastTime: Double
    /// The room's own time at `lastTime`: where a recorded participant made large joins its
    /// recording, which has run on with the room (its sound is heard there).
    var lastLocal = 0.0
    /// Pins the script has made in this play (and before it: `pinOrder`), for `pinSerial`.
    var pinsMade = 0
    /// In a shard's fast-forward the room still follows its sound and switches its large
    /// participant, but the video player it starts decodes nothing until `activate`.
    var defersVideo: Bool

    // MARK: Layout

    let room: Room
    /// The storyboard's layout, or the script's latest `layout` action.
    var style: RoomLayoutStyle
    /// The grid page the script asked for (from 0); the page shown is the last one there is
    /// when the grid has fewer.
    var requestedPage = 0
    var page = 0
    var shownArrangement: Arrangement?
    /// Why the arrangement changed, for the next `layout` event.
    var arrangementReason: String?
    /// Who sits in which tile of the grid's pages or the stage (rebuilt on a change of layout).
    var seating: RoomSeating?
    /// Dominant speakers, the most recent first: a stage shows the first, a grid brings each to
    /// page 1.
    var recentSpeakers: [String] = []
    /// The players of the tiles shown (a grid's page, a stage, a picture-in-picture camera),
    /// by seat, with the size each decodes at.
    var tilePlayers: [Int: (player: ItemPlayer, width: Int, height: Int)] = [:]
    /// The tiles drawn last, by seat, with their rectangles.
    var shownTiles: [(seat: Int, rect: TileRect)] = []
    /// A presentation's last frame (a grid's is `gridCanvas`, the others' the painter's), to
    /// fade from.
    var lastOwnFrame: RGBAImage?
    /// The canvas a grid is drawn into, kept from frame to frame (a new one a frame cost page
    /// faults), and the stage's large area likewise.
    var gridCanvas: RGBAImage?
    var stageCanvas: RGBAImage?
    var stageVersion = 0

    init(room: Room, storyID: String, at t: Double, canvas: (width: Int, height: Int), limits: DecodeLimits,
         clock: StageClock?, waits: Bool, deferred: Bool = false, pins: [String: Bool], pinOrder: [String] = [],
         view: RoomView = RoomView(), trace: LifecycleTrace) {
        self.room = room
        style = view.layout ?? room.layout
        requestedPage = max(0, (view.page ?? 1) - 1)
        self.storyID = storyID
        defersVideo = deferred
        self.trace = trace
        self.limits = limits
        self.clock = clock
        self.waits = waits
        lastTime = t
        layout = RoomLayout(width: canvas.width, height: canvas.height)
        painter = RoomPainter(layout: layout)
        // Every participant's thread starts at once, so the sources open side by side. With the
        // virtual clock the room waits for each to say what it is (bounded by the open
        // timeout), so its first decisions are those of every run; with the realtime clock it
        // never waits: a participant joins the order when its thread has opened it.
        seats = room.participants.map { participant in
            let id = trace.nextPlayerID()
            trace.record(.play, t: t, story: storyID, player: id, participant: participant.id, media: "audio")
            let sound = ParticipantSound(participant: participant, limits: limits, waits: waits, name: "sound #\(id) \(storyID)")
            return Seat(participant: participant, audioPlayer: id, sound: sound, opened: false, hasSound: false, hasVideo: false,
                        failed: false, pinned: pins[participant.id] ?? participant.pinned, avatar: nil)
        }
        for (serial, participant) in pinOrder.enumerated() {
            for index in seats.indices where seats[index].participant.id == participant { seats[index].pinSerial = serial + 1 }
        }
        pinsMade = pinOrder.count
        order = Array(seats.indices)
        admitOpened(at: t)
    }

    // MARK: - Opening

    /// Takes in what each participant's thread found when it opened the source: waited for
    /// with the virtual clock, only what has come with the realtime clock. A source that could
    /// not be opened is traced as failed at `t`.
    func admitOpened(at t: Double) {
        for index in seats.indices where !seats[index].opened {
            // The avatar comes first, so a participant shows its face while its source opens
            // (the realtime clock draws frames meanwhile).
            if !waits, seats[index].avatar == nil { seats[index].avatar = seats[index].sound.loadedAvatar }
            guard let result = seats[index].sound.open(waiting: waits) else { continue }
            seats[index].opened = true
            // The thread stores the avatar before it says how the source opened, so it is final
            // now, failed or not: the virtual clock's frames do not depend on a race.
            seats[index].avatar = seats[index].sound.loadedAvatar
            switch result {
            case .success(let facts):
                seats[index].hasSound = facts.hasSound
                seats[index].hasVideo = facts.hasVideo
                seats[index].endsAt = facts.duration
                seats[index].videoSize = facts.videoSize
            case .failure(let error):
                seats[index].failed = true
                trace.record(.failed, t: t, story: storyID, player: seats[index].audioPlayer, error: error.description,
                             participant: seats[index].participant.id, media: "audio")
            }
        }
    }

    // MARK: - Who is large

    package func setPinned(_ participant: String, _ pinned: Bool) {
        if pinned { pinsMade += 1 }
        for index in seats.indices where seats[index].participant.id == participant {
            seats[index].pinned = pinned
            seats[index].pinSerial = pinned ? pinsMade : 0
        }
    }

    /// The script's `layout` and `page` actions so far; they take effect at the next frame.
    package func setView(_ view: RoomView) {
        style = view.layout ?? room.layout
        requestedPage = max(0, (view.page ?? 1) - 1)
    }

    /// Stream's default comparators: pinned (the latest pin first), screen sharing, dominant
    /// speaker, speaking, has video, has audio, id. The sort starts from the previous order and
    /// is stable. A participant that failed or left (`Seat.gone`) is no longer heard, so it is
    /// neither the dominant speaker nor speaking, nor has video or sound: an audit's dominant
    /// camera that failed kept the large area, its avatar with the error mark, for the rest of
    /// the room beside a working camera in the strip; a recording that ended kept it with its
    /// last picture frozen, as the viewer's only moving picture played in the strip's place.
    func sortSeats() {
        let keys = seats.map { seat in
            [seat.pinned, (seat.participant.screensharing || seat.participant.screenshare) && !seat.gone, speaker.dominant == seat.participant.id && !seat.gone,
             speaker.isSpeaking(seat.participant.id) && !seat.gone, seat.hasVideo && !seat.gone, seat.hasSound && !seat.gone]
        }
        let previous = order
        order = previous.enumerated().sorted { a, b in
            let (first, second) = (seats[a.element], seats[b.element])
            if first.pinned, second.pinned, first.pinSerial != second.pinSerial { return first.pinSerial > second.pinSerial }
            for (x, y) in zip(keys[a.element], keys[b.element]) where x != y { return x }
            let ids = (seats[a.element].participant.id, seats[b.element].participant.id)
            return ids.0 != ids.1 ? ids.0 < ids.1 : a.offset < b.offset
        }.map(\.element)
    }

    /// With the realtime clock, how long a window may wait for a participant's sound before it
    /// is measured without it (as silence): the network's usual lag, not a stall.
    static let soundLagLimit = 1.0

    /// Measures every 100 ms window of sound up to media time `local` and records each change
    /// of dominant speaker at timeline time `t`, the frame that finds it. With the virtual clock every
    /// participant's sound is waited for; with the realtime clock a window waits (unmeasured)
    /// until every participant's sound for it has come, at most `soundLagLimit`.
    func listen(until local: Double, at t: Double) {
        let window = DominantSpeaker.window
        let count = Int((window * Double(ItemAudio.rate)).rounded())
        while measuredUntil + window <= local + 1e-9 {
            let end = measuredUntil + window
            if !waits, local - end < RoomStage.soundLagLimit,
               !seats.allSatisfy({ !$0.hasSound || $0.sound.covers(end) }) { break }
            var levels: [String: Double] = [:]
            for seat in seats where seat.hasSound {
                levels[seat.participant.id] = DominantSpeaker.rms(seat.sound.samples(from: measuredUntil, count: count))
            }
            measuredUntil = end
            if let changed = speaker.add(window: levels) {
                recentSpeakers.removeAll { $0 == changed }
                recentSpeakers.insert(changed, at: 0)
                // Stamped with the frame that finds it, the frame the large view changes in, not
                // the window's end: at a frame rate whose frames do not fall on the 100 ms windows
                // that end lies before the frame, and a shard starting at that frame took the
                // event for the shard before's, which never measured the window.
                trace.record(.speaker, t: t, story: storyID, participant: changed)
            }
        }
        noteSoundFailures(at: t)
    }

    /// Traces a live participant's reconnect tries, and a participant whose sound failed after
    /// it opened (a recorded source that stalls past the read timeout or breaks, a live one
    /// past its retries) as failed, at `t`; the room goes on without its sound.
    func noteSoundFailures(at t: Double) {
        for index in seats.indices {
            for (attempt, reason) in seats[index].sound.takeReconnects() {
                trace.record(.reconnect, t: t, story: storyID, player: seats[index].audioPlayer, error: reason, attempt: attempt,
                             participant: seats[index].participant.id, media: "audio")
            }
            guard let error = seats[index].sound.takeFailure() else { continue }
            seats[index].failed = true
            trace.record(.failed, t: t, story: storyID, player: seats[index].audioPlayer, error: error.description,
                         participant: seats[index].participant.id, media: "audio")
        }
    }

    /// A recorded participant whose file has played to its end by media time `local` has left
    /// the room, as a caller who hangs up leaves a call: the large area goes to someone still
    /// there. Decided by the file's length, not by when its threads noticed the end, so every
    /// run and every shard decides at the same frame.
    func noteLeaving(at local: Double) {
        for index in seats.indices where !seats[index].left {
            if let end = seats[index].endsAt, local >= end - 1e-9 { seats[index].left = true }
        }
    }

    /// Stops, at `t`, the audio player of each participant who has left once the room has
    /// measured its sound to the end, as any player whose item has ended: not kept alive with a
    /// finished file until the room leaves the screen. Not at the leaving frame itself: the
    /// 100 ms window holding the file's end is often measured a frame later, and a sound closed
    /// before would measure it from whatever had been taken, which differs between a render
    /// that mixes sound and a shard's fast-forward that does not.
    func stopSoundOfThoseWhoLeft(at t: Double) {
        for index in seats.indices where seats[index].left && !seats[index].soundStopped {
            guard let end = seats[index].endsAt, measuredUntil >= end - 1e-9 else { continue }
            seats[index].soundStopped = true
            seats[index].sound.close()
            trace.record(.stop, t: t, story: storyID, player: seats[index].audioPlayer,
                         participant: seats[index].participant.id, media: "audio")
        }
    }

    // MARK: - The picture

    /// Brings the room to media time `local` (timeline time `t`) without drawing it: the sound
    /// up to then is measured, and the large participant switched if the order changed. A
    /// shard's fast-forward calls it for every frame it skips, so the room's decisions (and the
    /// moments its video players start) are the full render's.
    func follow(local: Double, at t: Double) {
        lastTime = t
        lastLocal = local
        admitOpened(at: t)
        listen(until: local, at: t)
        noteLeaving(at: local)
        stopSoundOfThoseWhoLeft(at: t)
        sortSeats()
        let arrangement = currentArrangement
        if arrangement != shownArrangement { arrange(arrangement, at: t) }
        switch arrangement {
        case .spotlight:
            followLarge(at: t)
        case .presentation:
            followLarge(at: t)
            followPictureInPicture(at: t)
        case .grid, .stage:
            followTiles(arrangement, at: t)
        }
    }

    /// The spotlight's large participant, switched when the order changed.
    func followLarge(at t: Double) {
        if order[0] != shownLarge {
            switchLarge(to: order[0], at: t)
        } else if let large = shownLarge, seats[large].left, let video, video.seat == large {
            // Everyone else has left too (or is pinned below it): the one large shows its
            // avatar, as a participant without video does, not its last picture frozen; it
            // cross-fades there, as a switch of participant does, rather than cutting.
            if let lastFrame = lastShownFrame { fade = (lastFrame, t) }
            stopVideo(at: t)
        } else if video == nil, let large = shownLarge, seats[large].hasVideo, !seats[large].gone {
            // With the realtime clock a participant may be large before its thread has opened
            // its source (a room of one is large from its first frame): its video starts once
            // the source says it has one.
            startVideo(of: large, at: t)
        }
    }

    /// Starts decoding the large participant's video where a full render would be showing it,
    /// at a shard's first frame.
    func activate(at t: Double, previousFrame: Double) {
        defersVideo = false
        video?.player.activate(at: t, previousFrame: previousFrame)
        for seat in tilePlayers.keys.sorted() { tilePlayers[seat]?.player.activate(at: t, previousFrame: previousFrame) }
    }

    /// The room at media time `local` (timeline time `t`).
    func picture(local: Double, at t: Double) -> RGBAImage {
        follow(local: local, at: t)
        var frame: RGBAImage
        switch shownArrangement ?? .spotlight {
        case .spotlight:
            frame = spotlightFrame(at: t)
            lastOwnFrame = nil
        case .presentation:
            frame = spotlightFrame(at: t)
            clock.measure(.overlay) { drawTiles(on: &frame, at: t) }
            lastOwnFrame = frame
        case .grid:
            frame = clock.measure(.overlay) { gridFrame(at: t) }
            lastOwnFrame = nil
        case .stage:
            frame = clock.measure(.overlay) { stageFrame(at: t) }
            lastOwnFrame = nil
        }
        lastFaded = nil
        if let fade {
            let amount = (t - fade.start) / RoomStage.crossfade
            if amount < 1, fade.from.width == frame.width, fade.from.height == frame.height {
                frame = fade.from.crossfaded(to: frame, amount: max(0, amount))
                lastFaded = frame
            } else {
                self.fade = nil
            }
        }
        return frame
    }

    /// The last frame as shown, what a change fades from.
    var lastShownFrame: RGBAImage? {
        lastFaded ?? lastOwnFrame ?? (shownArrangement == .grid ? gridCanvas : painter.lastPicture)
    }

    /// The spotlight's picture: the large participant and the strip (a presentation's too).
    func spotlightFrame(at t: Double) -> RGBAImage {
        let large = order[0]
        var content: RoomPicture.Large?
        var key: RoomPainter.LargeKey?
        if let video, video.seat == large {
            if let picture = video.player.picture(at: t) {
                content = .picture(picture)
                // A new picture from the player is a new version; the same one is not drawn again.
                key = RoomPainter.LargeKey(source: video.player.id, version: video.player.shownVersion)
            } else if video.player.isFailed {
                seats[large].failed = true
            }
        }
        if content == nil {
            content = .content(avatarContent(large, width: layout.large.width, height: layout.large.height))
            // Player ids are not negative: a seat's prepared content is keyed apart from them.
            key = RoomPainter.LargeKey(source: -1 - large, version: seats[large].contentVersion)
        }
        let strip = stripEntries(Array(order.dropFirst()))
        return clock.measure(.overlay) { painter.render(large: content!, key: key, strip: strip) }
    }

    /// A participant's avatar over its blurred avatar, `width`×`height` (the large area, or a
    /// tile), made once (again if it fails later, or at another size).
    func avatarContent(_ seat: Int, width: Double, height: Double) -> RGBAImage {
        if let made = seats[seat].avatarContent, made.failed == seats[seat].failed,
           made.hasAvatar == (seats[seat].avatar != nil), made.width == width, made.height == height { return made.picture }
        let picture = RoomPicture.avatarTile(seats[seat].avatar, failed: seats[seat].failed, width: width, height: height,
                                             markRadius: layout.avatarDiameter / 3)
        seats[seat].avatarContent = (seats[seat].failed, seats[seat].avatar != nil, width, height, picture)
        return picture
    }

    /// Stops the old large participant's video player and starts the new one's; the picture
    /// cross-fades from the last frame shown.
    func switchLarge(to seat: Int, at t: Double) {
        // In a shard's fast-forward nothing was drawn to fade from: a shard that starts within
        // a cross-fade shows the new participant without it (as it shows the avatar without
        // the fade after everyone has left: the differences from a full render).
        if shownLarge != nil, let lastFrame = lastShownFrame { fade = (lastFrame, t) }
        shownLarge = seat
        traceLayout(at: t, tiles: [seats[seat].participant.id], why: arrangementReason.map { "\($0); " } .map { $0 + largeReason(seat) } ?? largeReason(seat))
        arrangementReason = nil
        stopVideo(at: t)
        guard seats[seat].hasVideo, !seats[seat].gone else { return }
        startVideo(of: seat, at: t)
    }

    /// Starts the video player of `seat`, the large participant.
    func startVideo(of seat: Int, at t: Double) {
        let participant = seats[seat].participant
        let id = trace.nextPlayerID()
        trace.record(.play, t: t, story: storyID, player: id, participant: participant.id)
        let item = StoryItem(source: participant.source, duration: nil, isLive: participant.isLive)
        // A recording is shown where the room is in it, in step with its sound: before, it
        // started from its first picture when it became large, as far behind its voice as the
        // room was old.
        // Decoded at the size it is shown, each picture fitted whole into the large area by its
        // own shape (one that turns mid-stream too, and a live one whose size the probe could
        // not tell), so no picture is rescaled per frame and a landscape camera keeps its sides.
        video = (seat, ItemPlayer(id: id, itemIndex: 0, item: item, storyID: storyID, startedAt: t,
                                  joinsAt: participant.isLive ? 0 : max(0, lastLocal), size: layout.largeAreaSize, fitsWhole: true, limits: limits, clock: clock, waits: waits,
                                  deferred: defersVideo, participant: participant.id, trace: trace))
    }

    func stopVideo(at t: Double) {
        guard let video else { return }
        video.player.close()
        trace.record(.stop, t: t, story: storyID, player: video.player.id, pictures: video.player.pictures,
                     participant: seats[video.seat].participant.id) { event in
            if let delivered = video.player.media?.deliveredBy, !delivered.isEmpty { event.protocolName = delivered }
            event.jitterBufferMs = video.player.jitterBufferMs
        }
        self.video = nil
    }

    // MARK: - Sound

    /// Every participant's sound at media time `local`, mixed (`--mp4`).
    func sound(local: Double, count: Int) -> [Float] {
        var mixed = [Float](repeating: 0, count: count * 2)
        for seat in seats where seat.hasSound {
            let samples = seat.sound.samples(from: local, count: count)
            for i in 0..<mixed.count { mixed[i] += samples[i] }
        }
        return mixed
    }

    // MARK: - Stop

    /// Drops every player of the room at timeline time `t` (the last time seen when nil).
    func close(at t: Double?) {
        let t = t ?? lastTime
        stopVideo(at: t)
        stopTiles(at: t)
        for seat in seats { seat.sound.requestStop() }
        for index in seats.indices {
            seats[index].sound.close()
            // One that left may have been stopped already.
            let seat = seats[index]
            guard !seat.soundStopped else { continue }
            trace.record(.stop, t: t, story: storyID, player: seat.audioPlayer, participant: seat.participant.id, media: "audio")
        }
        seats.removeAll()
    }
}
