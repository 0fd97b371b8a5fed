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
///
/// Each concern keeps its own state: `RoomSeats` (who is there, joining, failing, leaving,
/// pinned, the order), `RoomListening` (the sound and who speaks), `RoomVideo` (the video
/// players), `RoomArrangement` (the layout, the seating, who is large) and `RoomFrames` (the
/// painter, canvases and cross-fade). The room takes the steps of a frame in order
/// (`follow`, `+Arranging`) and draws it (`+Picture`).
package final class RoomStage {
    let layout: RoomLayout
    let clock: StageClock?
    var seats: RoomSeats
    var listening: RoomListening
    var video: RoomVideo
    var arrangement: RoomArrangement
    var frames: RoomFrames
    private var lastTime: Double
    /// The room's own time at `lastTime`: where a recorded participant made large joins its
    /// recording, which has run on with the room (its sound is heard there).
    private(set) var lastLocal = 0.0

    init(room: Room, storyID: String, at t: Double, canvas: (width: Int, height: Int), limits: DecodeLimits,
         clock: StageClock?, waits: Bool, interruption: RenderInterruption? = nil, deferred: Bool = false, pins: [String: Bool], pinOrder: [String] = [],
         view: RoomView = RoomView(), trace: LifecycleTrace) {
        layout = RoomLayout(width: canvas.width, height: canvas.height)
        self.clock = clock
        lastTime = t
        arrangement = RoomArrangement(room: room, layout: layout, view: view, storyID: storyID, trace: trace)
        video = RoomVideo(storyID: storyID, limits: limits, clock: clock, waits: waits, interruption: interruption,
                          deferred: deferred, trace: trace)
        listening = RoomListening(storyID: storyID, waits: waits, trace: trace)
        frames = RoomFrames(layout: layout)
        seats = RoomSeats(room.participants, storyID: storyID, at: t, limits: limits, waits: waits,
                          interruption: interruption, pins: pins, pinOrder: pinOrder, trace: trace)
        seats.admitOpened(at: t)
    }

    // MARK: - The script's actions

    package func setPinned(_ participant: String, _ pinned: Bool) {
        seats.setPinned(participant, pinned)
    }

    /// The script's `layout` and `page` actions so far; they take effect at the next frame.
    package func setView(_ view: RoomView) {
        arrangement.setView(view)
    }

    // MARK: - A frame's steps

    /// Brings the room to media time `local` (timeline time `t`) without drawing it: the sound
    /// up to then is measured, and the large participant switched if the order changed. A
    /// shard's fast-forward calls it for every frame it skips, so the room's decisions (and the
    /// moments its video players start) are the full render's.
    func follow(local: Double, at t: Double) {
        lastTime = t
        lastLocal = local
        seats.admitOpened(at: t)
        listening.listen(until: local, at: t, to: seats.all)
        seats.noteSoundFailures(at: t)
        seats.noteLeaving(at: local)
        seats.stopSoundOfThoseWhoLeft(measuredUntil: listening.measuredUntil, at: t)
        seats.sort(by: listening)
        let kind = arrangement.wanted(sharing: seats.hasScreenShare)
        if kind != arrangement.shown { arrange(kind, at: t) }
        switch kind {
        case .spotlight:
            followLarge(at: t)
        case .presentation:
            followLarge(at: t)
            followPictureInPicture(at: t)
        case .grid, .stage:
            followTiles(at: t)
        }
    }

    /// Starts decoding the large participant's video where a full render would be showing it,
    /// at a shard's first frame.
    func activate(at t: Double, previousFrame: Double) {
        video.activate(at: t, previousFrame: previousFrame)
    }

    /// Every participant's sound at media time `local`, mixed (`--mp4`).
    func sound(local: Double, count: Int) -> [Float] {
        RoomListening.mixed(seats.all, local: local, count: count)
    }

    // MARK: - Stop

    /// Drops every player of the room at timeline time `t` (the last time seen when nil).
    func close(at t: Double?) {
        let t = t ?? lastTime
        video.stopLarge(at: t)
        video.stopTiles(at: t)
        arrangement.clearTiles()
        seats.close(at: t)
    }
}
