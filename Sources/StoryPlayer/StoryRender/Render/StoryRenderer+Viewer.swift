import Compositor
import Foundation
import StoryModel
import StoryPlayback

// MARK: - Following the plan: the players it starts, stops, holds and ends

extension StoryRenderer: PlanFollower {
    /// Navigation and lifecycle up to frame `n`: the planner decides, the players follow.
    func step(toFrame n: Int) {
        framePlan = planner.plan(frame: n, following: self)
    }

    // The calls below come while the planner steps: they read the viewer from their arguments,
    // never from `navigator` (the planner is mid-change).

    /// The viewer moved: its gesture releases go in the trace, the preload window follows it.
    package func followViewer(_ navigator: ViewerNavigator, at t: Double) -> [Story] {
        recordReleases(navigator)
        return requestPreloads(navigator)
    }

    /// Stops the players that should not play, then starts those that should (stopping first keeps
    /// the number alive at its bound even when a tap replaces one story by another); then the
    /// preloads requested meanwhile are put in the trace.
    package func followPlays(stopping: [Int], starting: [(story: Int, item: Int)], at t: Double) {
        for story in stopping {
            countReachLifts(of: players[story].current)
            players[story].stop(at: t)
        }
        for (story, item) in starting { players[story].play(item: item, at: t) }
        settlePreloads(at: t)
    }

    /// The script's room actions (`pin`, `unpin`, `layout`, `page`) due by `t`, on their room
    /// (the story on screen when the action names none).
    package func followScript(at t: Double, settledPage: Int) {
        while nextRoomAction < storyboard.roomActions.count, storyboard.roomActions[nextRoomAction].at <= t + 1e-9 {
            let action = storyboard.roomActions[nextRoomAction]
            nextRoomAction += 1
            let index = action.story.flatMap { id in stories.firstIndex { $0.id == id } } ?? settledPage
            guard players.indices.contains(index) else { continue }
            switch action.change {
            case .pin(let participant, let pins): players[index].roomPins[participant] = pins
            case .layout(let style): players[index].roomView.layout = style
            case .page(let page): players[index].roomView.page = page
            }
        }
    }

    /// A finger held on the story, or pulling it down, pauses its current item; it resumes when
    /// the finger lifts, a live item at its live edge.
    package func followHold(_ change: ViewerNavigator.HoldChange, story: Int) {
        guard let player = players[story].current else { return }
        switch change {
        case .pause(let start):
            player.pause(at: start)
        case .resume(let end):
            if let skipped = player.resume(at: end) {
                warnings.append("story \(players[story].story.id): live item resumed at the live edge, "
                                + "skipping \(ObjectReader.format((skipped * 1000).rounded() / 1000)) s")
            }
        }
    }

    /// The player knows, not the plan: a video's data may end early, a live stream stop, a
    /// source fail.
    package func itemHasEnded(story: Int, planned: Bool, at t: Double) -> Bool {
        players[story].current?.hasEnded(at: t) ?? false
    }

    package func followItemEnd(story: Int, at t: Double) {
        players[story].current?.markEnded(at: t)
    }

    /// The releases of drags and pulls since the last step, as `gesture` events.
    private func recordReleases(_ navigator: ViewerNavigator) {
        while recordedReleases < navigator.releases.count {
            let release = navigator.releases[recordedReleases]
            recordedReleases += 1
            trace.record(release, story: stories[release.story].id)
        }
    }
}
