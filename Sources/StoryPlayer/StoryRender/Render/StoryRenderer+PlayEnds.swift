import Foundation
import StoryMedia
import StoryPlayback

// MARK: - Foreseeing where plays end, so that no picture is decoded past them

extension StoryRenderer {
    /// How far ahead (timeline seconds) the render looks for plays that end, at least; and at
    /// least twice `DecodeLimits.picturesInFlight` frames, because it looks every half of that:
    /// the end is then known before a decode thread gets there. With five pictures in flight, a
    /// half-second window sufficed; with decoding ahead, a play ending just past it had been
    /// decoded up to 15 pictures too far.
    static let playEndForesight = 0.5

    /// Tells each play that ends within the next `playEndForesight` the last media time it shows
    /// (`ItemPlayer.foreseeEnd`), so its decode thread stops after the first picture past it
    /// (`DecodeReach`). Looked at every half of that, from frame `n` just stepped to.
    ///
    /// The foresight is a copy of the render's planner stepped ahead on its own: the same
    /// script, the same viewer, without players. It cannot know when a playing item's data
    /// ends, so it sees a play end only by a gesture, the viewer finishing or the render's
    /// `lastFrame`; an item that ends earlier ends earlier, which costs nothing. The virtual
    /// clock's only: the realtime clock does not wait for a picture, and a feed's stories arrive
    /// as the render goes.
    func foreseePlayEnds(after n: Int, lastFrame: Int) {
        guard options.foreseesPlayEnds, playback == .virtual, storyboard.feed == nil, let current = framePlan else { return }
        let fps = storyboard.canvas.fps
        let window = max(2, Int((StoryRenderer.playEndForesight * fps).rounded(.up)), 2 * limits.picturesInFlight)
        guard n % (window / 2) == 0 else { return }
        let open = planner.plays.indices.filter { planner.plays[$0].end == nil }
        guard !open.isEmpty else { return }
        // The media time each open play shows last, from this frame on.
        var lastShown: [Int: Double] = [:]
        func note(_ plan: FramePlan, play index: Int) {
            let play = planner.plays[index]
            guard let shown = plan.shown.first(where: { $0.plays && $0.story == play.story && $0.item == play.item }) else { return }
            lastShown[index] = max(lastShown[index] ?? shown.mediaTime, shown.mediaTime)
        }
        for index in open { note(current, play: index) }
        var ahead = planner
        var ending = Set<Int>()
        let horizon = min(n + 1 + window, lastFrame)
        while ahead.nextIndex < horizon {
            let plan = ahead.next()
            // A finished viewer's frame is not drawn: every play ends before it.
            if plan.isFinished {
                ending.formUnion(open)
                break
            }
            // A play that ends at this step does not show this frame.
            for index in open where !ending.contains(index) {
                if ahead.plays[index].end != nil {
                    ending.insert(index)
                } else {
                    note(plan, play: index)
                }
            }
        }
        // The render's last frame is within the window: what still plays ends with it.
        if ahead.nextIndex >= lastFrame { ending.formUnion(open) }
        for index in ending {
            let play = planner.plays[index]
            guard let shownUpTo = lastShown[index], let player = players[play.story].current,
                  player.itemIndex == play.item, player.startedAt == play.start else { continue }
            // Half a frame over: the pictures shown are decided with a hair's slack.
            player.foreseeEnd(showingUpTo: shownUpTo + 0.5 / fps)
            playEndsForeseen += 1
        }
    }

    /// Adds up the times `player` needed a picture past its foreseen end (`reachLifts`), as it
    /// stops.
    func countReachLifts(of player: ItemPlayer?) {
        reachLifts += player?.reachLifts ?? 0
        picturesDecodedPastStops += player?.picturesDecodedPastShown ?? 0
    }
}
