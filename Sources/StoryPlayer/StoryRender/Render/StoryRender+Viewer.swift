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
        if navigator.endsItems, let player = players[navigator.settledPage].current, player.hasEnded(at: t) {
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

    /// A finger held on the story, or pulling it down, pauses its current item; it resumes when
    /// the finger lifts (`ViewerNavigator.holdChange`), a live item at its live edge.
    func applyHold(at t: Double) {
        guard let player = players[navigator.settledPage].current else { return }
        switch navigator.holdChange(at: t, isPaused: player.isPaused) {
        case .pause(let start)?:
            player.pause(at: start)
        case .resume(let end)?:
            if let skipped = player.resume(at: end) {
                warnings.append("story \(players[navigator.settledPage].story.id): live item resumed at the live edge, "
                                + "skipping \(ObjectReader.format((skipped * 1000).rounded() / 1000)) s")
            }
        case nil:
            break
        }
    }

    /// Stops the players that should not play, then starts those that should
    /// (`ViewerNavigator.playChanges`).
    func syncPlayers(at t: Double) {
        let playing = Dictionary(uniqueKeysWithValues: players.indices.compactMap { index in
            players[index].current.map { (index, $0.itemIndex) }
        })
        let changes = navigator.playChanges(playing: playing)
        for story in changes.stop { players[story].stop(at: t) }
        for (story, item) in changes.start { players[story].play(item: item, at: t) }
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
