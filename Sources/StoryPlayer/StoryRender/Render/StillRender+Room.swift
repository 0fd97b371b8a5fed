import Compositor
import StoryMedia
import StoryModel
import StoryPlayback
import StoryTrace

// MARK: - A still of a live room

extension StillRender {
    /// What a face shows at media time `time`: a room as a render shows it then, or the item's
    /// own picture. A room's failed participants are added to `failedParticipants` ("gone of
    /// panel: …"); the room itself does not fail.
    static func picture(of story: Story, item index: Int = 0, at time: Double, storyboard: Storyboard, limits: DecodeLimits,
                        failedParticipants: inout [String]) throws -> RGBAImage {
        let item = story.items[index]
        guard item.room != nil else {
            return try PictureLoader.load(item.source, at: time, width: storyboard.canvas.width, height: storyboard.canvas.height,
                                          fit: item.source.fit ?? storyboard.canvas.fit, limits: limits)
        }
        let room = roomPicture(story, at: time, storyboard: storyboard, limits: limits)
        failedParticipants += room.failedParticipants
        return room.image
    }

    /// How long the first item lasts, for the progress segments: as `ItemPlayer.length` has it.
    static func length(of item: StoryItem, limits: DecodeLimits) -> Double {
        if item.room != nil { return item.duration ?? Room.defaultDuration }
        let media = item.isLive ? nil
            : (try? MediaProbe.run(source: item.source, limits: limits, isLive: false, decodeFirstFrame: false))
        return item.duration.map { d in media?.duration.map { min($0, d) } ?? d }
            ?? media.flatMap { $0.kind == .picture ? nil : $0.duration }
            ?? (item.isLive ? StoryItem.defaultLiveDuration : StoryItem.defaultPhotoDuration)
    }

    /// The room at media time `time`, on screen since 0 as the first story of a render is: who is
    /// large follows the sound up to then and the script's pins for this room (at their times),
    /// as a shard's fast-forward follows it through the frames before `time`, at the
    /// storyboard's fps; then only the large participant's video is decoded, at `time`. It is
    /// the render's frame except within a cross-fade (0.25 s after a change), which a still,
    /// like a shard that starts there, shows finished.
    static func roomPicture(_ story: Story, at time: Double, storyboard: Storyboard,
                            limits: DecodeLimits) -> (image: RGBAImage, failedParticipants: [String]) {
        let canvas = storyboard.canvas
        let trace = LifecycleTrace()
        let player = ItemPlayer(id: trace.nextPlayerID(), itemIndex: 0, item: story.items[0], storyID: story.id, startedAt: 0,
                                size: (canvas.width, canvas.height), limits: limits, clock: nil, waits: true,
                                deferred: true, trace: trace)
        // A pin that names no story is for the story on screen: this one.
        let pins = storyboard.roomActions.filter { $0.story == nil || $0.story == story.id }
        var nextPin = 0
        var view = RoomView()
        func pin(until t: Double) {
            while nextPin < pins.count, pins[nextPin].at <= t + 1e-9 {
                switch pins[nextPin].change {
                case .pin(let participant, let pinned): player.stage?.setPinned(participant, pinned)
                case .layout(let style): view.layout = style; player.stage?.setView(view)
                case .page(let page): view.page = page; player.stage?.setView(view)
                }
                nextPin += 1
            }
        }
        var frame = 0
        while Double(frame) / canvas.fps < time - 1e-9 {
            let t = Double(frame) / canvas.fps
            pin(until: t)
            player.followRoom(at: t)
            frame += 1
        }
        pin(until: time)
        player.activate(at: time, previousFrame: Double(max(0, frame - 1)) / canvas.fps)
        let image = player.picture(at: time)
            ?? RGBAImage(width: canvas.width, height: canvas.height, fill: RoomPicture.background)
        player.close(at: time)
        let failed = trace.events.filter { $0.event == .failed }.map { event in
            "\(event.participant ?? "?") of \(story.id): \(event.error ?? "failed")"
        }
        return (image, failed)
    }
}
