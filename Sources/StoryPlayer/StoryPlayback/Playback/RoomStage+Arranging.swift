import Compositor
import Foundation

/// The room's decisions at a frame: the arrangement, who is large, who sits in which tile, and
/// which video players play for them.
extension RoomStage {
    /// A change of arrangement: the tiles' players stop (and the large one's, for tiles), the
    /// picture cross-fades from the last frame, as a change of the large participant does.
    func arrange(_ kind: RoomArrangement.Kind, at t: Double) {
        let first = arrangement.shown == nil
        if !first { fadeFromLastShown(at: t) }
        video.stopTiles(at: t)
        // The large participant is chosen again, so the change is traced with it.
        if kind == .grid || kind == .stage || !first { video.stopLarge(at: t) }
        arrangement.start(kind)
    }

    /// The spotlight's large participant, switched when the order changed.
    func followLarge(at t: Double) {
        let large = arrangement.large
        if seats.order[0] != large {
            switchLarge(to: seats.order[0], at: t)
        } else if let large, seats[large].left, video.largeSeat == large {
            // Everyone else has left too (or is pinned below it): the one large shows its
            // avatar, as a participant without video does, not its last picture frozen; it
            // cross-fades there, as a switch of participant does, rather than cutting.
            fadeFromLastShown(at: t)
            video.stopLarge(at: t)
        } else if video.largeSeat == nil, let large, seats[large].hasVideo, !seats[large].gone {
            // With the realtime clock a participant may be large before its thread has opened
            // its source (a room of one is large from its first frame): its video starts once
            // the source says it has one.
            startLargeVideo(of: large, at: t)
        }
    }

    /// Stops the old large participant's video player and starts the new one's; the picture
    /// cross-fades from the last frame shown.
    func switchLarge(to seat: Int, at t: Double) {
        // In a shard's fast-forward nothing was drawn to fade from: a shard that starts within
        // a cross-fade shows the new participant without it (as it shows the avatar without
        // the fade after everyone has left: the differences from a full render).
        if arrangement.large != nil { fadeFromLastShown(at: t) }
        arrangement.makeLarge(seat, id: seats[seat].participant.id,
                              because: seats.largeReason(seat, dominant: listening.dominant), at: t)
        video.stopLarge(at: t)
        guard seats[seat].hasVideo, !seats[seat].gone else { return }
        startLargeVideo(of: seat, at: t)
    }

    func startLargeVideo(of seat: Int, at t: Double) {
        video.startLarge(seat, seats[seat].participant, size: layout.largeAreaSize, local: lastLocal, at: t)
    }

    func fadeFromLastShown(at t: Double) {
        frames.fadeFromLastShown(grid: arrangement.shown == .grid, at: t)
    }

    /// A grid's page or a stage: the seating follows who is there and who speaks, and each
    /// tile shown with video has its player at the tile's size.
    func followTiles(at t: Double) {
        noteFailedTiles()
        let present = seats.order.filter { !seats[$0].left && !seats[$0].participant.screenshare }.map { seats[$0].participant.id }
        let dominant = listening.dominant.flatMap { id in seats.all.contains { $0.participant.id == id && !$0.gone } ? id : nil }
        let aspect = seats.videoAspect ?? Double(layout.width) / Double(layout.height)
        let tiles = arrangement.seatTiles(present: present, dominant: dominant, recent: listening.recentSpeakers,
                                          aspect: aspect, seatOf: seats.index(of:), at: t)
        video.play(tiles.filter { seats[$0.seat].hasVideo && !seats[$0.seat].gone }, of: seats, local: lastLocal, at: t)
    }

    /// A presentation's picture-in-picture tile: its sharer's camera while the share is large.
    func followPictureInPicture(at t: Double) {
        noteFailedTiles()
        guard let large = arrangement.large, seats[large].participant.screenshare, let sharer = seats[large].participant.sharer,
              let camera = seats.index(of: sharer), !seats[camera].gone else {
            arrangement.showPictureInPicture(nil)
            video.play([], of: seats, local: lastLocal, at: t)
            return
        }
        let aspect = seats[camera].videoSize.map { Double($0.width) / Double($0.height) } ?? 9.0 / 16
        let tile = (seat: camera, rect: layout.pictureInPicture(aspect: aspect))
        arrangement.showPictureInPicture(tile)
        video.play(seats[camera].hasVideo ? [tile] : [], of: seats, local: lastLocal, at: t)
    }

    /// A tile's player that failed fails its participant here, where a shard's fast-forward
    /// decides it too (not only when a frame is drawn): its tile shows the avatar with the
    /// error mark, and its player stops.
    func noteFailedTiles() {
        for seat in video.failedTiles { seats.fail(seat) }
    }
}
