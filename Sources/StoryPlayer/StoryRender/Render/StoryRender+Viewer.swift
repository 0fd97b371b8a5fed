import Compositor
import Foundation
import StoryModel

// MARK: - Navigation and the players it starts and stops

extension StoryRender {
    /// Navigation and lifecycle up to timeline time `t`.
    func step(to t: Double) {
        advanceViewer(to: t)
        applyRoomActions(at: t)
        applyHold(at: t)
        // An item ends only while its story rests on screen; a page in motion holds its items.
        if !navigator.isMoving, !navigator.isFinished, let player = players[navigator.settledPage].current,
           player.hasEnded(at: t) {
            player.markEnded(at: t)
            navigator.currentItemEnded(at: t)
            advanceViewer(to: t)
        }
    }

    /// The viewer's gestures up to `t`, then the preload window and the players that follow
    /// from where it rests.
    func advanceViewer(to t: Double) {
        navigator.advance(to: t)
        recordReleases()
        requestPreloads()
        syncPlayers(at: t)
        settlePreloads(at: t)
    }

    /// The releases of drags and pulls since the last step, as `gesture` events.
    func recordReleases() {
        while recordedReleases < navigator.releases.count {
            let release = navigator.releases[recordedReleases]
            recordedReleases += 1
            trace.record(release, story: stories[release.story].id)
        }
    }

    /// A finger held on the story, or pulling it down, pauses its current item from the moment it
    /// went down; the item resumes from the moment it was lifted, or the pulled story was back in
    /// place (a live item at its live edge).
    func applyHold(at t: Double) {
        guard let player = players[navigator.settledPage].current else { return }
        let spans = [navigator.hold, navigator.pullPause].compactMap { $0 }
        if let active = spans.first(where: { t >= $0.start && t < $0.end }) {
            player.pause(at: active.start)
        } else if player.isPaused, let last = spans.filter({ $0.end <= t }).max(by: { $0.end < $1.end }),
                  let skipped = player.resume(at: last.end) {
            warnings.append("story \(players[navigator.settledPage].story.id): live item resumed at the live edge, "
                            + "skipping \(ObjectReader.format((skipped * 1000).rounded() / 1000)) s")
        }
    }

    /// Stops the players that should not play, then starts those that should. Stopping first keeps
    /// the number alive at its bound even when a tap replaces one story by another.
    func syncPlayers(at t: Double) {
        let wanted = Dictionary(uniqueKeysWithValues: navigator.playingStories.map { ($0.story, $0.item) })
        for (index, player) in players.enumerated() {
            guard let current = player.current else { continue }
            if wanted[index] != current.itemIndex { player.stop(at: t) }
        }
        for (index, item) in wanted.sorted(by: { $0.key < $1.key }) where !players[index].isPlaying {
            players[index].play(item: item, at: t)
        }
    }

    /// The script's `pin` and `unpin` actions due by `t`, on their room (the story on screen
    /// when the action names none).
    func applyRoomActions(at t: Double) {
        while nextRoomAction < storyboard.roomActions.count, storyboard.roomActions[nextRoomAction].at <= t + 1e-9 {
            let action = storyboard.roomActions[nextRoomAction]
            nextRoomAction += 1
            let index = action.story.flatMap { id in stories.firstIndex { $0.id == id } } ?? navigator.settledPage
            guard players.indices.contains(index) else { continue }
            players[index].roomPins[action.participant] = action.pins
        }
    }
}
