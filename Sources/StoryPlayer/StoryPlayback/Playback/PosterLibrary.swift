import Compositor
import Foundation
import StoryBase
import StoryLive
import StoryMedia
import StoryModel
import Synchronization

/// Posters and stream metadata for the stories near the current one (LinkedIn's preload window:
/// one behind, two ahead), loaded on a background thread as the viewer moves, and never for the
/// whole feed. Posters are images, not players: they are not subject to create-on-play.
///
/// For each item the poster is its `poster`, else the story's, else (a local recorded item) its
/// own first frame; a live item with none has no poster. It is kept blurred and darkened at a
/// quarter of the canvas (the loading background) and sharp and small (the avatar bubble).
package final class PosterLibrary: Sendable {
    /// What one preload brought in for a story.
    package struct Entry: Sendable {
        /// Each item's poster, sharp at a quarter of the canvas, named by its source (items
        /// that share a poster share the name), or nil when the item has none.
        var posters: [String?]
        var sharp: [String: RGBAImage]
        /// The loading backgrounds made so far, by poster (`card(ofPoster:)`).
        var cards: [String: RGBAImage]
        var avatars: [RGBAImage?]
        package var probe: MediaProbe?
        package var loaded: [String]
        package var problems: [String]
        /// Items standing in as their own poster whose first picture did not load, with why.
        /// Not a problem of its own while the item plays (its play fails, and says so); the
        /// render names those it never played (`StoryRenderer.noteUnplayedItemsThatFailed`).
        package var ownPosterFailures: [(item: Int, error: String)] = []
    }

    let canvas: Canvas
    let look: LoadingLook
    private let limits: DecodeLimits
    /// Serial: preloads run beside the players and the frames in flight, one at a time, so that
    /// they do not crowd out a player opening its first picture. Posters (mostly local files)
    /// and probes (mostly the network) have a queue each, so that a dead URL in the window
    /// delays no poster, and nothing waits for a probe but the end of the render, which
    /// cancels what is left (`cancelProbes`).
    private let queue = DispatchQueue(label: "live-stories.preload")
    private let probeQueue = DispatchQueue(label: "live-stories.preload-probe")
    /// Stopped at the end of the render: a probe under way gives up, and those not begun never start.
    private let probeGate = InterruptGate()
    private struct State {
        var entries: [Int: Entry] = [:]
        var requested: Set<Int> = []
        /// One group per requested story, left when its posters are loaded (`wait(for:)`).
        var loading: [Int: DispatchGroup] = [:]
        /// One group per requested story, left when its posters and its probe are done.
        var finished: [Int: DispatchGroup] = [:]
        var unreported: [(story: Int, entry: Entry)] = []
        var misses = 0
        /// Requests made while loads are deferred (`defersLoads`), not begun: loaded only if a
        /// frame shows one of their posters.
        var deferred: [Int: Story] = [:]
        var defersLoads = false
    }
    private let state = Mutex(State())
    /// Times a face needed a poster that was not loaded yet (it showed the background).
    package var misses: Int { state.withLock { $0.misses } }

    static let reduction = 4
    static let darkening = 0.72

    /// Charged with the loads' CPU time: opening and decoding under `.preload`, the cards under
    /// `.overlay` (on the thread that first shows one).
    private let clock: StageClock?
    /// The virtual clock: `picture` waits for a story still loading instead of showing the
    /// background, so that frames do not depend on how long loading took.
    private let waitsForLoads: Bool
    /// Local files already named as missing before the render (`Storyboard.missingLocalFiles`,
    /// with their JSON path): a poster or probe of one is not loaded, and says nothing more, so
    /// that one missing file is reported once.
    private let knownMissing: Set<String>

    package init(canvas: Canvas, look: LoadingLook, limits: DecodeLimits, clock: StageClock? = nil, waitsForLoads: Bool = false,
         knownMissing: Set<String> = []) {
        self.canvas = canvas
        self.look = look
        self.limits = limits
        self.clock = clock
        self.waitsForLoads = waitsForLoads
        self.knownMissing = knownMissing
    }

    /// A local file named as missing before the render.
    private func isKnownMissing(_ source: MediaSource) -> Bool {
        !source.isRemote && knownMissing.contains(source.location)
    }

    /// While set (a shard's fast-forward, under the virtual clock), a request only marks its
    /// stories as requested. Their preload events fall before the shard's range, so the shard's
    /// trace drops them, and the shard that covers them loads and reports them; a poster is
    /// loaded here only if one of this shard's frames shows it, when it is waited for (`wait`).
    /// Each shard loading its whole first window was most of what a shard costs beyond its
    /// frames: about 20 first pictures decoded and 3 sources probed, 0.24-0.30 of the
    /// 0.45-0.66 CPU s of a one-frame shard of the 60 s bench board (issue 33).
    package func defersLoads(_ defers: Bool) {
        guard waitsForLoads else { return }
        state.withLock { $0.defersLoads = defers }
    }

    /// Starts loading the stories in `indices` that were never requested. Stories in `playing`
    /// get no metadata probe: their own player is opening the same source and learns it at once
    /// (and some sources, such as an SRT listener, take a single caller).
    /// Returns the stories it started, in the order of `indices`.
    @discardableResult
    package func request(_ indices: [Int], stories: [Story], playing: Set<Int> = []) -> [Int] {
        let (fresh, groups): ([Int], [(DispatchGroup, DispatchGroup)]) = state.withLock { state in
            let fresh = indices.filter { !state.requested.contains($0) }
            state.requested.formUnion(fresh)
            if state.defersLoads {
                for index in fresh { state.deferred[index] = stories[index] }
                return (fresh, [])
            }
            return (fresh, fresh.map { index in
                let posters = DispatchGroup(), finished = DispatchGroup()
                posters.enter()
                finished.enter()
                state.loading[index] = posters
                state.finished[index] = finished
                return (posters, finished)
            })
        }
        for (index, (posters, finished)) in zip(fresh, groups) {
            let story = stories[index]
            let probe = !playing.contains(index)
            queue.async { [self] in
                let entry = loadPosters(story)
                state.withLock { $0.entries[index] = entry }
                posters.leave()
                probeQueue.async { [self] in
                    var entry = entry
                    if probe { self.probe(story, into: &entry) }
                    state.withLock { state in
                        state.entries[index] = entry
                        state.unreported.append((index, entry))
                    }
                    finished.leave()
                }
            }
        }
        return fresh
    }

    /// Waits for one story's load, if it was requested; a deferred one is loaded now, on this
    /// thread (its posters only: the probe only tells the trace, which drops its event).
    func wait(for story: Int) {
        let (done, deferred) = state.withLock { state in (state.loading[story], state.deferred.removeValue(forKey: story)) }
        if let deferred {
            let entry = loadPosters(deferred)
            state.withLock { $0.entries[story] = entry }
        }
        done?.wait()
    }

    /// Waits for every requested load, posters and probes (the virtual clock, so that renders
    /// stay deterministic; and the end of every render, after `cancelProbes`).
    package func waitForRequests() {
        for done in state.withLock({ Array($0.finished.values) }) { done.wait() }
    }

    /// Waits up to `seconds` for every requested load, posters and probes (the end of a virtual
    /// render, before `cancelProbes`: a local file's probe is not called off for being late).
    package func waitForRequests(upTo seconds: Double) {
        let deadline = DispatchTime.now() + seconds
        for done in state.withLock({ Array($0.finished.values) }) { _ = done.wait(timeout: deadline) }
    }

    /// Waits up to `seconds` for the posters requested so far (the realtime clock's start: local
    /// posters take milliseconds, and a dead server must not hold the first frame).
    package func waitForPosters(upTo seconds: Double) {
        let deadline = DispatchTime.now() + seconds
        for done in state.withLock({ Array($0.loading.values) }) { _ = done.wait(timeout: deadline) }
    }

    /// Gives up the probes still under way or waiting (the render has ended): each is reported
    /// as not loaded, with why, at once.
    package func cancelProbes() { probeGate.requestStop() }

    /// Loads finished since the last call, in story order.
    package func collect() -> [(story: Int, entry: Entry)] {
        state.withLock { state in
            defer { state.unreported.removeAll() }
            return state.unreported.sorted { $0.story < $1.story }
        }
    }

    /// The loading picture of an item at canvas size, with the loading ring when `ring` is set.
    /// The item's blurred, darkened poster at a quarter of the canvas, or nil when the story has
    /// none (the background of a failed story's error card). Waits as `picture` does.
    package func card(story: Int, item: Int) -> RGBAImage? {
        if waitsForLoads { wait(for: story) }
        return card(story: story, item: item, of: state.withLock { $0.entries[story] })
    }

    /// The blurred, darkened card of an item's poster, made the first time it is shown and kept.
    /// Made on demand, not when the poster loads: most items' cards are never shown (an item
    /// shows one only while its player has no picture), and a shard's preload window would make
    /// them all again at its start. The blur is the same either way, so the pixels are too.
    private func card(story: Int, item: Int, of entry: Entry?) -> RGBAImage? {
        guard let entry, item < entry.posters.count, let key = entry.posters[item],
              let poster = entry.sharp[key] else { return nil }
        if let made = entry.cards[key] { return made }
        let radius = Int((look.blur * Double(canvas.width) / 720 / Double(PosterLibrary.reduction)).rounded())
        let card = clock.measure(.overlay) {
            var card = poster.blurred(radius: radius)
            card.darken(by: PosterLibrary.darkening)
            return card
        }
        // The probe thread may have replaced the entry meanwhile (with the same posters): the
        // card goes into whichever entry is there now.
        state.withLock { $0.entries[story]?.cards[key] = card }
        return card
    }

    /// Under the virtual clock a story still loading is waited for; otherwise a story whose
    /// posters are not loaded yet shows the background, and counts as a miss.
    package func picture(story: Int, item: Int, at t: Double, ring: Bool) -> RGBAImage {
        if waitsForLoads { wait(for: story) }
        let entry: Entry? = state.withLock { state in
            let entry = state.entries[story]
            if entry == nil { state.misses += 1 }
            return entry
        }
        let card = card(story: story, item: item, of: entry)
        // A face is opaque, as every story picture is: one that shows the background shows its
        // colour without its alpha (black for "transparent").
        var picture = card?.scaled(width: canvas.width, height: canvas.height)
            ?? RGBAImage(width: canvas.width, height: canvas.height, fill: canvas.background.opaque)
        if ring {
            let avatar = entry.flatMap { item < $0.avatars.count ? $0.avatars[item] : nil }
            StoryOverlay.drawLoadingRing(on: &picture, avatar: avatar, at: t)
        }
        return picture
    }

    // MARK: - Loading (on the preload thread)

    private func loadPosters(_ story: Story) -> Entry {
        let small = (max(2, canvas.width / PosterLibrary.reduction), max(2, canvas.height / PosterLibrary.reduction))
        let avatarSide = max(2, Int(96 * Double(canvas.width) / 720))
        var entry = Entry(posters: [], sharp: [:], cards: [:], avatars: [], probe: nil, loaded: [], problems: [])
        var cache: [String: RGBAImage] = [:]
        for (index, item) in story.items.enumerated() {
            let source: MediaSource
            if let poster = item.poster ?? story.poster {
                source = poster
            } else if !item.isLive && !item.source.isRemote && item.source.refusal == nil {
                source = item.source
            } else {
                entry.posters.append(nil)
                entry.avatars.append(nil)
                continue
            }
            if let avatar = cache[source.identity] {
                entry.posters.append(source.identity)
                entry.avatars.append(avatar)
                continue
            }
            do {
                // One decode per poster: the avatar is the centre of the small picture.
                // A storyboard's `protocols` narrows what its streams may use; a local poster
                // is a picture on this machine, read through `file` whatever the list says.
                var posterLimits = limits
                if !source.isRemote { posterLimits.protocols = nil }
                let poster = try clock.measure(.preload) { () throws(MediaError) in
                    try PictureLoader.load(source, width: small.0, height: small.1, limits: posterLimits)
                }
                let avatar = clock.measure(.overlay) { poster.centreSquare().scaled(width: avatarSide, height: avatarSide) }
                cache[source.identity] = avatar
                entry.posters.append(source.identity)
                entry.sharp[source.identity] = poster
                entry.avatars.append(avatar)
            } catch {
                entry.posters.append(nil)
                entry.avatars.append(nil)
                // A poster given by the storyboard is named when it fails; an item standing in
                // as its own poster is not, because its play says the same of it (with its path)
                // and a user read the one failure twice.
                let given = item.poster != nil || story.poster != nil
                if !isKnownMissing(source) {
                    if given {
                        entry.problems.append("story \(story.id): poster not loaded: \(error)")
                    } else if error.code != .noVideoStream {
                        // A source of sound only has no picture of its own to stand in with, and
                        // is no failure: its play shows a still over its sound (`SoundOnlyStill`).
                        entry.ownPosterFailures.append((index, "\(error)"))
                    }
                }
            }
        }
        if entry.posters.contains(where: { $0 != nil }) { entry.loaded.append("poster") }
        return entry
    }

    /// The story's first item's metadata, under the probe gate.
    private func probe(_ story: Story, into entry: inout Entry) {
        guard let first = story.items.first, first.source.refusal == nil, !isKnownMissing(first.source) else { return }
        // Its own poster failed to open the same file just now: said once, by that failure.
        guard !entry.ownPosterFailures.contains(where: { $0.item == 0 }) else { return }
        guard !probeGate.isStopped else {
            entry.problems.append("story \(story.id): metadata not loaded: the render ended first")
            return
        }
        do {
            entry.probe = try clock.measure(.preload) { () throws(MediaError) in
                try MediaProbe.run(source: first.source, limits: limits, isLive: first.isLive, decodeFirstFrame: false,
                                   gate: probeGate, live: LiveSources.reading(first.source, isLive: first.isLive))
            }
            entry.loaded.append("probe")
        } catch {
            entry.problems.append("story \(story.id): metadata not loaded: \(error)")
        }
    }
}
