import Compositor
import Foundation
import StoryModel
import StoryPlayback

extension StoryRenderer {
    // MARK: - Preload window and feed pages

    /// Starts loading posters and metadata for the stories from `behind` to `ahead` around the
    /// resting one, and fetches the feed's next page when the viewer is within two stories of the
    /// end; returns the stories of a page that arrived. Players are synced between this and
    /// `settlePreloads`, so that a player opening its source and the posters loading share the cores.
    func requestPreloads(_ navigator: ViewerNavigator) -> [Story] {
        guard !stories.isEmpty else { return [] }
        var arrived: [Story] = []
        let here = navigator.settledPage
        let window = max(0, here - storyboard.preload.behind)...min(stories.count - 1, here + storyboard.preload.ahead)
        let playing = Set(navigator.playingStories.map(\.story))
        unrecordedPreloads += posters.request(Array(window), stories: stories, playing: playing)
        if let feed {
            if feed.next != nil, here >= stories.count - 1 - FeedPages.fetchDistance, feedFailedAt != here {
                feed.fetchNext()
            }
            if playback == .virtual { feed.waitForFetch() }
            switch feed.collect() {
            case .success(let page)?:
                accept(page.stories)
                arrived = page.stories
                feedFailedAt = nil
                unrecordedPreloads += posters.request(Array(window), stories: stories, playing: playing)
            case .failure(let error)?:
                noteFeedFailure("\(error)")
                feedFailedAt = here
            case nil:
                break
            }
        }
        return arrived
    }

    /// A next page that fails again at each move fails the same way: one notice, which counts
    /// the tries, instead of the same sentence once per move.
    func noteFeedFailure(_ reason: String) {
        guard let (index, tries) = feedFailureNotices[reason] else {
            feedFailureNotices[reason] = (warnings.count, 1)
            warnings.append("\(reason); staying on the stories already loaded, retrying at the next move")
            return
        }
        feedFailureNotices[reason] = (index, tries + 1)
        warnings[index] = "\(reason); staying on the stories already loaded, retrying at each move (failed \(tries + 1) times)"
    }

    /// How long a realtime render waits for the first window's posters before its clock starts.
    static let posterWaitAtStart = 1.0

    /// Puts preloads in the trace. The realtime clock records a preload when it arrives, and
    /// waits only for the first window, before playback starts. The virtual clock records it at
    /// the frame that requested it and fills in what it brought when it is done, so that the
    /// trace does not depend on how long loading took; frames wait for a poster only when they
    /// show it (`PosterLibrary.picture`), and the render for all of them at its end.
    func settlePreloads(at t: Double, waiting: Bool = false) {
        if playback == .virtual {
            for index in unrecordedPreloads.sorted() {
                openPreloadEvents[index] = trace.record(.preload, t: t, story: stories[index].id, loaded: [])
            }
        } else if waiting {
            posters.waitForPosters(upTo: StoryRenderer.posterWaitAtStart)
        }
        unrecordedPreloads.removeAll()
        completePreloads(at: t)
    }

    /// Records (realtime) or completes (virtual) the preloads that have finished.
    func completePreloads(at t: Double) {
        for (index, entry) in posters.collect() {
            let detail = entry.probe.map {
                ($0.kind == .sound ? "sound" : "\($0.codec) \($0.width)x\($0.height)") + ($0.isLive ? " live" : "")
            }
            if let event = openPreloadEvents.removeValue(forKey: index) {
                trace.complete(event, loaded: entry.loaded, detail: detail)
            } else {
                trace.record(.preload, t: t, story: stories[index].id, loaded: entry.loaded, detail: detail)
            }
            if !entry.problems.isEmpty { preloadProblems[index, default: []] += entry.problems }
            if !entry.ownPosterFailures.isEmpty { ownPosterFailures[index] = entry.ownPosterFailures }
        }
    }

    /// Names, in `warnings`, each item that was loaded as its own poster and failed, and that
    /// no play of this render reached: its play would have said why it failed, and without one
    /// the file's fault would go unsaid (a face showing the story had the loading background).
    /// By JSON path, as a play's failure is. A shard that ends before the render does cannot
    /// tell, since a later shard may play the item; the last shard's fast-forward saw every play.
    func noteUnplayedItemsThatFailed() {
        let played = Set(planner.plays.map { "\($0.story) \($0.item)" })
        for index in ownPosterFailures.keys.sorted() {
            let path = index < storyboard.stories.count ? "stories[\(index)]." : "story \(stories[index].id): "
            for (item, error) in ownPosterFailures[index]! where !played.contains("\(index) \(item)") {
                warnings.append("\(path)items[\(item)]: not played, and its first picture did not load for its poster: \(error)")
            }
        }
    }

    /// Stories of a feed's page, with their players; the planner learns of them from the caller.
    func accept(_ newStories: [Story]) {
        stories += newStories
        addPlayers(for: newStories)
    }
}
