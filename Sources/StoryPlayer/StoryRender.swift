import Compositor
import Foundation

/// Settings of a render that are not in the storyboard.
public struct RenderOptions: Sendable {
    public var outputFolder: String
    public var png = PNGOptions()
    /// Draw UI elements over the stories (none yet; later issues add them).
    public var overlay = true
    public var limits = DecodeLimits()
    /// Rasterizer threads, and as many PNG encoders; defaults to one per core.
    public var threads = Rasterizer.defaultThreadCount
    /// The thread counts a render accepts. Each thread also lets one more frame be in flight
    /// (8 MB at 1080x1920), so the bound is what keeps a mistyped count from exhausting memory.
    public static let threadCounts = 1...256
    /// Called after each frame with (frames done, frames planned or nil when open-ended).
    public var progress: (@Sendable (Int, Int?) -> Void)?
    /// Overrides the storyboard's `clock`.
    public var clock: PlaybackClock?
    /// Write a contact sheet of evenly spaced frames here.
    public var contactSheet: String?
    public var sheetColumns = ContactSheet.defaultColumns
    public var sheetFrames = RenderOptions.defaultSheetFrames
    public static let defaultSheetFrames = 24
    /// Write the lifecycle timeline picture here.
    public var timeline: String?
    /// Write frame PNGs (false: only the other outputs).
    public var writeFrames = true
    /// Render only these frames (a shard): byte-identical to the same frames of a full render.
    public var frameRange: Range<Int>?
    /// Also write an MP4 clip with the mixed sound.
    public var clip: ClipOptions?

    public init(outputFolder: String) {
        self.outputFolder = outputFolder
    }
}

/// Renders a storyboard to `frame-NNNNNN.png`, `lifecycle.jsonl` and `summary.json`.
///
/// The clock is virtual: frame n shows timeline time n / fps, and files decode on demand, so
/// two renders of the same storyboard give byte-identical frames.
public final class StoryRender {
    public let storyboard: Storyboard
    public let options: RenderOptions
    public let trace: LifecycleTrace
    /// CPU time per pipeline stage, across all threads.
    public let clock = StageClock()
    private var navigator: ViewerNavigator
    /// The stories so far: the storyboard's, or the feed's pages as they arrive.
    public private(set) var stories: [Story]
    private var players: [StoryPlayer]
    private let rasterizer: Rasterizer
    private let posters: PosterLibrary
    private var feed: FeedPages?
    /// The settled page at which the last page fetch failed: it is retried at the next move.
    private var feedFailedAt: Int?
    private var warnings: [String] = []
    /// The pictures the overlay was drawn into on the last frame of a turn, one per face, reused
    /// on the next so a transition allocates no picture per frame. Dropped at rest.
    private var overlayCopies: [RGBAImage?] = [nil, nil]
    /// Virtual clock: stories whose preload was requested but not yet put in the trace.
    private var unrecordedPreloads: [Int] = []
    /// Virtual clock: trace events of preloads still loading, by story.
    private var openPreloadEvents: [Int: Int] = [:]
    /// What preloads could not load, by story (listed in story order, so notices stay deterministic).
    private var preloadProblems: [Int: [String]] = [:]
    private var thumbnails = ThumbnailPicker(wanted: 0, planned: nil, width: 2)
    /// Frames a shard passed over before its range.
    private var framesBefore = 0
    private let limits: DecodeLimits
    /// The clock this render runs on (the storyboard's, or the option's).
    public let playback: PlaybackClock
    /// Frames not drawn because the realtime render fell behind.
    public private(set) var lateFrames: [Int] = []

    /// The longest open-ended render: a safety net, since every item has a finite length.
    public static let openEndedLimit = 3600.0

    public init(storyboard: Storyboard, options: RenderOptions) {
        self.storyboard = storyboard
        self.options = options
        let trace = LifecycleTrace()
        self.trace = trace
        navigator = ViewerNavigator(storyboard: storyboard)
        var limits = options.limits
        limits.timeouts = storyboard.timeouts
        limits.protocols = storyboard.protocols
        self.limits = limits
        let playback = options.clock ?? storyboard.clock
        self.playback = playback
        stories = storyboard.stories
        players = []
        rasterizer = Rasterizer(threads: options.threads)
        posters = PosterLibrary(canvas: storyboard.canvas, look: storyboard.loading, limits: limits, clock: clock,
                                waitsForLoads: playback == .virtual)
        feed = storyboard.feed.map { FeedPages(feed: $0, folder: storyboard.folder, timeout: storyboard.timeouts.open) }
        addPlayers(for: stories)
    }

    private func addPlayers(for newStories: [Story]) {
        let clock = self.clock
        players += newStories.map {
            let player = StoryPlayer(story: $0, canvas: storyboard.canvas, limits: limits, clock: clock, playback: playback, trace: trace)
            player.defersDecoding = defersNewPlayers
            return player
        }
    }

    /// Checks that the output folder can be written, before any work is done.
    public static func prepareOutputFolder(_ folder: String) throws(RenderError) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw RenderError(.output, "cannot create output folder \(folder)", cause: "\(error.localizedDescription)")
        }
        let probe = (folder as NSString).appendingPathComponent(".write-test-\(getpid())")
        guard FileManager.default.createFile(atPath: probe, contents: Data()) else {
            throw RenderError(.output, "cannot write to output folder \(folder)")
        }
        try? FileManager.default.removeItem(atPath: probe)
    }

    /// Runs the whole render. Throws only when output cannot be written.
    public func run() throws(RenderError) -> RenderSummary {
        let folder = options.outputFolder
        try StoryRender.prepareOutputFolder(folder)
        let canvasSpec = storyboard.canvas
        if let feed, stories.isEmpty {
            do {
                let page = try feed.fetchFirst()
                guard !page.stories.isEmpty else { throw RenderError(.feed, "the feed's first page has no stories") }
                accept(page.stories)
            } catch let error as RenderError {
                throw error
            } catch {
                throw RenderError(.feed, "cannot load the feed", cause: "\(error)")
            }
        }
        let fps = canvasSpec.fps
        let plannedFrames = StoryRender.plannedFrames(storyboard)
        let frameLimit = plannedFrames ?? Int(StoryRender.openEndedLimit * fps)
        // Enough frames in flight to keep every core compressing while the next frame is drawn;
        // the bound is what keeps memory flat. One more than the cores measured as fast as two
        // more, with a canvas less held.
        let writer = FrameWriter(options: options.png, maxInFlight: options.threads + 1, workers: options.threads,
                                 clock: clock)
        defer { writer.close() }
        var frames = 0
        var endTime = 0.0
        thumbnails = ThumbnailPicker(wanted: options.sheetFrames, planned: plannedFrames,
                                     width: min(canvasSpec.width, 180))
        // Posters of the first window start loading now, while the first player opens its
        // source; the realtime clock waits for them before it starts running.
        requestPreloads()
        if playback == .realtime { settlePreloads(at: 0, waiting: true) }
        let clip: ClipQueue?
        do {
            clip = try options.clip.map { options throws(MediaError) in
                ClipQueue(try ClipWriter(options: options, width: canvasSpec.width, height: canvasSpec.height, fps: fps))
            }
        } catch {
            throw RenderError(.output, "cannot write the MP4", cause: error.description)
        }
        var firstClipFrame: Int?
        let started = ContinuousClock.now
        let range = options.frameRange
        if let range, range.lowerBound > 0 { setDeferred(true) }
        for n in 0..<frameLimit {
            let t = Double(n) / fps
            if let range, n >= range.upperBound { break }
            // A shard reaches its first frame's state without drawing or decoding what comes
            // before: navigation and lifecycle run, players only learn their media's length.
            let fastForward = range.map { n < $0.lowerBound } ?? false
            if let range, n == range.lowerBound, n > 0 { setDeferred(false) }
            if playback == .realtime {
                // Timeline time is wall time: wait for the frame's moment, or skip it if the next
                // frame's moment has already passed. Time is never stretched.
                let due = started + .nanoseconds(Int64(t * 1e9))
                let now = ContinuousClock.now
                if now < due {
                    Thread.sleep(forTimeInterval: (due - now).seconds)
                } else if now > due + .nanoseconds(Int64(1e9 / fps)) {
                    lateFrames.append(n)
                    continue
                }
            }
            endTime = t
            step(to: t)
            if let range, n == range.lowerBound { for player in players { player.current?.activate(at: t) } }
            if plannedFrames == nil && navigator.isFinished { break }
            if fastForward {
                framesBefore = n + 1
                continue
            }
            var canvas = writer.reusableCanvas()
                ?? RGBAImage(width: canvasSpec.width, height: canvasSpec.height, fill: canvasSpec.background)
            compose(at: t, into: &canvas)
            if options.contactSheet != nil { thumbnails.offer(n, time: t, canvas) }
            if let clip {
                let first = firstClipFrame ?? n
                firstClipFrame = first
                let samples = { (k: Int) in Int((Double(k) * Double(ItemAudio.rate) / fps).rounded()) }
                let sound = mix(at: t, count: samples(n + 1 - first) - samples(n - first))
                clip.submit(frame: canvas, index: n - first, audio: sound)
            }
            if options.writeFrames { writer.submit(canvas, to: StoryRender.framePath(folder, n)) }
            frames += 1
            if let error = writer.error {
                throw RenderError(.output, "cannot write frame \(n)", cause: error.description)
            }
            options.progress?(frames, plannedFrames)
        }
        if plannedFrames == nil && !navigator.isFinished {
            warnings.append("stopped after \(StoryRender.openEndedLimit) s of timeline: give \"duration\" for longer renders")
        }
        var finalTime = plannedFrames.map { Double($0) / fps } ?? endTime
        if let range, let planned = plannedFrames, range.upperBound < planned { finalTime = Double(range.upperBound) / fps }
        if let range, plannedFrames == nil, !navigator.isFinished { finalTime = Double(range.upperBound) / fps }
        let framesCovered = plannedFrames ?? (framesBefore + frames + lateFrames.count)
        for player in players where player.isPlaying { player.stop(at: finalTime) }
        do {
            try writer.finish()
        } catch {
            throw RenderError(.output, "cannot write frames", cause: error.description)
        }
        if let clip {
            do {
                try clip.finish()
            } catch {
                throw RenderError(.output, "cannot write the MP4", cause: error.description)
            }
        }
        // Every preload requested is in the trace, complete, before the trace is cut or written.
        posters.waitForRequests()
        completePreloads(at: finalTime)
        if let range {
            // A shard's trace covers only its range; its stale-frame cleanup would delete the
            // frames of the shards beside it.
            trace.keepEvents(from: Double(range.lowerBound) / fps)
        } else {
            removeStaleFrames(in: folder, from: framesCovered)
        }
        var summary = RenderSummary(frames: frames, wallSeconds: trace.wall, stories: stories,
                                    trace: trace, notices: notices,
                                    stageSeconds: clock.seconds, cores: Rasterizer.defaultThreadCount)
        summary.clock = playback
        summary.timelineFPS = fps
        summary.lateFrames = lateFrames
        summary.posterMisses = posters.misses
        summary.timelineFrames = framesCovered
        summary.feedPages = feed?.pagesLoaded
        do {
            if let path = options.contactSheet, !thumbnails.chosen.isEmpty {
                try ContactSheet(columns: options.sheetColumns, cellWidth: thumbnails.width).render(thumbnails.chosen).writePNG(to: path)
            }
            if let path = options.timeline {
                try LifecycleTimeline.render(trace.events).writePNG(to: path)
            }
            try AtomicFile.write(Array(trace.jsonLines.utf8), to: (folder as NSString).appendingPathComponent("lifecycle.jsonl"))
            try AtomicFile.write(Array(summary.json.utf8), to: (folder as NSString).appendingPathComponent("summary.json"))
        } catch {
            throw RenderError(.output, "cannot write the trace, summary or pictures", cause: error.description)
        }
        return summary
    }

    private func setDeferred(_ deferred: Bool) {
        for player in players { player.defersDecoding = deferred }
        defersNewPlayers = deferred
    }

    private var defersNewPlayers = false

    /// The frames the storyboard's duration covers (a frame for every started 1/fps), or nil
    /// when the render runs until the viewer finishes.
    static func plannedFrames(_ storyboard: Storyboard) -> Int? {
        storyboard.duration.map { Int(($0 * storyboard.canvas.fps - 1e-9).rounded(.up)) }
    }

    /// How many frames a full render writes, found by running navigation and the lifecycle to the
    /// end without drawing or decoding anything.
    public static func countFrames(_ storyboard: Storyboard) throws(RenderError) -> Int {
        if let planned = plannedFrames(storyboard) { return planned }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("live-stories-count-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var options = RenderOptions(outputFolder: folder)
        options.writeFrames = false
        options.frameRange = Int.max / 2..<Int.max
        return try StoryRender(storyboard: storyboard, options: options).run().timelineFrames
    }

    /// `frame-000042.png` in `folder`.
    public static func framePath(_ folder: String, _ index: Int) -> String {
        (folder as NSString).appendingPathComponent(String(format: "frame-%06d.png", index))
    }

    /// Messages about the render that are not errors (a poster that failed to load, a gesture
    /// ignored): its own, then preload problems in story order, then the viewer's.
    public var notices: [String] {
        warnings + preloadProblems.keys.sorted().flatMap { preloadProblems[$0]! } + navigator.notices
    }

    // MARK: - One frame

    /// Navigation and lifecycle up to timeline time `t`.
    private func step(to t: Double) {
        advanceViewer(to: t)
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
    private func advanceViewer(to t: Double) {
        navigator.advance(to: t)
        requestPreloads()
        syncPlayers(at: t)
        settlePreloads(at: t)
    }

    // MARK: - Preload window and feed pages

    /// Starts loading posters and metadata for the stories from `behind` to `ahead` around the
    /// resting one, and fetches the feed's next page when the viewer is within two stories of the
    /// end. Players are synced between this and `settlePreloads`, so that a player opening its
    /// source and the posters loading share the cores.
    private func requestPreloads() {
        guard !stories.isEmpty else { return }
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
                feedFailedAt = nil
                unrecordedPreloads += posters.request(Array(window), stories: stories, playing: playing)
            case .failure(let error)?:
                warnings.append("\(error); staying on the stories already loaded, retrying at the next move")
                feedFailedAt = here
            case nil:
                break
            }
        }
    }

    /// Puts preloads in the trace. The realtime clock records a preload when it arrives, and
    /// waits only for the first window, before playback starts. The virtual clock records it at
    /// the frame that requested it and fills in what it brought when it is done, so that the
    /// trace does not depend on how long loading took; frames wait for a poster only when they
    /// show it (`PosterLibrary.picture`), and the render for all of them at its end.
    private func settlePreloads(at t: Double, waiting: Bool = false) {
        if playback == .virtual {
            for index in unrecordedPreloads.sorted() {
                openPreloadEvents[index] = trace.record(.preload, t: t, story: stories[index].id, loaded: [])
            }
        } else if waiting {
            posters.waitForRequests()
        }
        unrecordedPreloads.removeAll()
        completePreloads(at: t)
    }

    /// Records (realtime) or completes (virtual) the preloads that have finished.
    private func completePreloads(at t: Double) {
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
        }
    }

    private func accept(_ newStories: [Story]) {
        stories += newStories
        navigator.appendStories(itemCounts: newStories.map(\.items.count))
        addPlayers(for: newStories)
    }

    /// A finger held on the story pauses its current item from the moment it went down; the item
    /// resumes from the moment it was lifted (a live item at its live edge).
    private func applyHold(at t: Double) {
        guard let player = players[navigator.settledPage].current else { return }
        if navigator.isHeld(at: t), let hold = navigator.hold {
            player.pause(at: hold.start)
        } else if player.isPaused, let hold = navigator.hold, let skipped = player.resume(at: hold.end) {
            warnings.append("story \(players[navigator.settledPage].story.id): live item resumed at the live edge, "
                            + "skipping \(ObjectReader.format((skipped * 1000).rounded() / 1000)) s")
        }
    }

    /// Stops the players that should not play, then starts those that should. Stopping first keeps
    /// the number alive at its bound even when a tap replaces one story by another.
    private func syncPlayers(at t: Double) {
        let wanted = Dictionary(uniqueKeysWithValues: navigator.playingStories.map { ($0.story, $0.item) })
        for (index, player) in players.enumerated() {
            guard let current = player.current else { continue }
            if wanted[index] != current.itemIndex { player.stop(at: t) }
        }
        for (index, item) in wanted.sorted(by: { $0.key < $1.key }) where !players[index].isPlaying {
            players[index].play(item: item, at: t)
        }
    }

    private func compose(at t: Double, into canvas: inout RGBAImage) {
        let geometry = navigator.geometry
        let placements = geometry.faces(pageOffset: navigator.pageOffset, width: canvas.width, height: canvas.height)
        let undecorated = placements.map { TexturedFace(texture: texture(forStory: $0.page, at: t), placement: $0) }
        if undecorated.count == 1, undecorated[0].isPixelExact(width: canvas.width, height: canvas.height) {
            // A story at rest is the frame itself (the rasterizer copies its picture into the
            // reused canvas), so the overlay goes on the canvas, not on a copy of the picture.
            rasterizer.draw(undecorated, background: storyboard.canvas.background, into: &canvas, clock: clock)
            if options.overlay, navigator.overlayOpacity(at: t) > 0 {
                clock.measure(.overlay) { drawOverlay(on: &canvas, story: placements[0].page, at: t) }
            }
            // The copies kept for turns wait for the next one; at rest they are just memory.
            overlayCopies = [nil, nil]
        } else {
            let faces = undecorated.enumerated().map { slot, face in
                TexturedFace(texture: decorated(face.texture, story: face.placement.page, at: t, slot: slot),
                             placement: face.placement)
            }
            rasterizer.draw(faces, background: storyboard.canvas.background, into: &canvas, clock: clock)
        }
        if let bubble = navigator.bubbleTransform(at: t, width: canvas.width, height: canvas.height) {
            canvas = clock.measure(.overlay) { canvas.presented(bubble, background: storyboard.canvas.background) }
        }
    }

    /// The sound of the frame at `t`: each visible story's sound weighted by its share of the
    /// screen (1 − f and f mid-turn), so the sound crossfades with the picture.
    private func mix(at t: Double, count: Int) -> [Float] {
        var mixed = [Float](repeating: 0, count: count * 2)
        let p = navigator.pageOffset
        let pages = navigator.geometry.visiblePages(pageOffset: p)
        let f = p - p.rounded(.down)
        for page in pages {
            let share = pages.count == 1 ? 1.0 : (page == pages[0] ? 1 - f : f)
            guard share > 0, let sound = players[page].current?.sound(at: t, count: count) else { continue }
            let gain = Float(share)
            for i in 0..<mixed.count { mixed[i] += sound[i] * gain }
        }
        return mixed
    }

    /// The story's overlay drawn into its texture: the progress segments (which so turn with the
    /// cube), faded out while a finger holds the story.
    /// `slot` is the face's place in the frame; the copy made for it is kept for the next frame
    /// (the frame's faces are gone by then, so the copy is again this render's alone).
    private func decorated(_ picture: RGBAImage, story index: Int, at t: Double, slot: Int) -> RGBAImage {
        guard options.overlay, navigator.overlayOpacity(at: t) > 0 else { return picture }
        return clock.measure(.overlay) {
            var copy = picture
            if slot < overlayCopies.count, let kept = overlayCopies[slot], kept.width == picture.width,
               kept.height == picture.height {
                overlayCopies[slot] = nil
                copy = kept
                copy.copyPixels(from: picture)
            }
            drawOverlay(on: &copy, story: index, at: t)
            if slot < overlayCopies.count { overlayCopies[slot] = copy }
            return copy
        }
    }

    private func drawOverlay(on picture: inout RGBAImage, story index: Int, at t: Double) {
        let item = navigator.currentItems[index]
        let progress = players[index].current.map { $0.itemIndex == item ? $0.progress(at: t) : 0 } ?? 0
        StoryOverlay.drawSegments(on: &picture, count: stories[index].items.count, current: item, progress: progress,
                                  inset: storyboard.overlayInset, opacity: navigator.overlayOpacity(at: t))
    }

    /// A playing story shows its video (after a short crossfade from its loading picture if the
    /// first frame took time to come); a failed one its error card; a loading one its blurred
    /// poster with a spinner; one that is not playing (start: settle) its blurred poster.
    private func texture(forStory index: Int, at t: Double) -> RGBAImage {
        let item = navigator.currentItems[index]
        guard let player = players[index].current else {
            return posters.picture(story: index, item: item, at: t, ring: false)
        }
        if player.isFailed { return errorCard }
        let picture = player.picture(at: t)
        if player.isFailed { return errorCard }
        // Sound without a picture is playing, not loading: the poster stays, the ring goes.
        let ring = options.overlay && !player.playsSoundOnly
        let loading = { self.posters.picture(story: index, item: player.itemIndex, at: t, ring: ring) }
        guard let picture else { return loading() }
        let fade = storyboard.loading.fade
        if let shownAt = player.firstFrameAt, shownAt > player.startedAt, fade > 0, t - shownAt < fade {
            return loading().crossfaded(to: picture, amount: (t - shownAt) / fade)
        }
        return picture
    }

    private lazy var errorCard = RGBAImage(width: storyboard.canvas.width, height: storyboard.canvas.height,
                                           fill: ErrorCard.color)

    // MARK: - Set-up and clean-up

    /// Frames left from an earlier, longer render into the same folder would be mistaken for this one's.
    private func removeStaleFrames(in folder: String, from count: Int) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix("frame-") && name.hasSuffix(".png") {
            let digits = name.dropFirst("frame-".count).dropLast(".png".count)
            if digits.count == 6, let index = Int(digits), index >= count {
                try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent(name))
            }
        }
    }
}
