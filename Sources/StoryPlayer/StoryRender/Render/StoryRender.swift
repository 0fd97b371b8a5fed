import Compositor
import Foundation
import StoryBase
import StoryMedia
import StoryModel
import StoryPlayback
import StoryTrace

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
    /// What each frame shows and which players it wants (`FramePlanner`); the players follow it.
    var planner: FramePlanner
    /// The viewer as the planner has moved it. Not to be read while the planner steps (from the
    /// `PlanFollower` calls), which are given what they need.
    var navigator: ViewerNavigator { planner.navigator }
    /// The stories so far: the storyboard's, or the feed's pages as they arrive.
    public internal(set) var stories: [Story]
    var players: [StoryPlayer]
    let rasterizer: Rasterizer
    let posters: PosterLibrary
    var feed: FeedPages?
    /// The settled page at which the last page fetch failed: it is retried at the next move.
    var feedFailedAt: Int?
    /// The notice of each way a page fetch failed: where it is in `warnings`, and how many
    /// times it happened (`noteFeedFailure`).
    var feedFailureNotices: [String: (index: Int, tries: Int)] = [:]
    var warnings: [String] = []
    /// The copies the overlay was drawn into on the last frame of a turn, reused on the next so
    /// a transition allocates no picture per frame: for textures no player lent (posters,
    /// crossfades, error cards, rooms). Let go of at rest.
    let overlayCopies = PicturePool(capacity: 2)
    /// The players' pictures lent for the frame being drawn, by story (`giveBackLentPictures`).
    var lentPictures: [Int: LentPicture] = [:]
    /// For each face, the top rows of its lent picture as they were before the overlay was drawn
    /// on it; the storage is reused from frame to frame.
    var overlayBands: [[UInt8]] = [[], []]
    /// Virtual clock: stories whose preload was requested but not yet put in the trace.
    var unrecordedPreloads: [Int] = []
    /// Virtual clock: trace events of preloads still loading, by story.
    var openPreloadEvents: [Int: Int] = [:]
    /// What preloads could not load, by story (listed in story order, so notices stay deterministic).
    var preloadProblems: [Int: [String]] = [:]
    /// Items standing in as their own poster that failed to load, by story (`PosterLibrary.Entry`).
    var ownPosterFailures: [Int: [(item: Int, error: String)]] = [:]
    /// The next of the script's room actions to apply.
    var nextRoomAction = 0
    /// Frames a shard passed over before its range.
    var framesBefore = 0
    let limits: DecodeLimits
    /// The clock this render runs on (the storyboard's, or the option's).
    public let playback: PlaybackClock
    /// Frames not drawn because the realtime render fell behind.
    public internal(set) var lateFrames: [Int] = []
    /// When frame 0 was due, in seconds since 1970 (realtime clock only).
    public internal(set) var clockStartedAt: Double?
    /// The navigator's gesture releases already in the trace.
    var recordedReleases = 0
    /// The backdrop behind an opening, pulled or closing viewer, made on first use.
    var backdrop: BackdropBlur?

    /// The longest open-ended render: a safety net, since every item has a finite length.
    public static let openEndedLimit = FramePlanner.openEndedLimit

    /// How long a virtual render waits at its end for the probes still under way before calling
    /// them off: long enough for a local file's, short enough that a dead server costs little.
    static let probeWaitAtEnd = 1.0

    /// The captions of the storyboard's stories, drawn on their faces (`StoryCaptions`).
    let captions: StoryCaptions
    /// The plan of the frame last stepped to: the media time each caption is drawn at.
    var framePlan: FramePlan?

    /// The error card of each failed play, made once (player id → card).
    var errorCards: [Int: RGBAImage] = [:]
    /// Plays told where they end (`foreseePlayEnds`), and the times a player needed a picture
    /// past that all the same (the foresight was wrong: a wait, not a different picture).
    package internal(set) var playEndsForeseen = 0
    package internal(set) var reachLifts = 0
    /// Pictures decoded past the last one each play showed, added up at its stop (a test's seam:
    /// what the foresight failed to spare).
    package internal(set) var picturesDecodedPastStops = 0

    public init(storyboard: Storyboard, options: RenderOptions) {
        // Before any thread touches FFmpeg (posters load on their own, the MP4 encoder opens
        // early): nothing FFmpeg logs may reach the user's terminal.
        FFmpegLogging.configureOnce()
        self.storyboard = storyboard
        self.options = options
        let trace = LifecycleTrace()
        self.trace = trace
        // The render's items end when its players say so, so the planner needs no lengths.
        planner = FramePlanner(storyboard: storyboard,
                               lengths: ItemLengths(lengths: storyboard.stories.map { $0.items.map { _ in nil } }))
        var limits = StoryRender.limits(options.limits, for: storyboard)
        limits.interruption = options.interruption
        self.limits = limits
        let playback = options.clock ?? storyboard.clock
        self.playback = playback
        stories = storyboard.stories
        players = []
        rasterizer = Rasterizer(threads: options.threads)
        let missing = storyboard.missingLocalFiles
        // Said before the render by the CLI, and kept in summary.json too, where a batch or a
        // job runner reads what went wrong; so is a page action to a page no grid has.
        warnings = missing.map(\.description) + storyboard.roomPageNotices
        posters = PosterLibrary(canvas: storyboard.canvas, look: storyboard.loading, limits: limits, clock: clock,
                                waitsForLoads: playback == .virtual,
                                knownMissing: Set(missing.map(\.file)))
        feed = storyboard.feed.map { FeedPages(feed: $0, folder: storyboard.folder, timeout: storyboard.timeouts.open) }
        captions = StoryCaptions(storyboard: storyboard, platform: options.captionZones)
        addPlayers(for: stories)
    }

    func addPlayers(for newStories: [Story]) {
        let clock = self.clock
        players += newStories.map {
            let player = StoryPlayer(story: $0, canvas: storyboard.canvas, limits: limits, clock: clock, playback: playback, trace: trace)
            player.defersDecoding = defersNewPlayers
            player.factsBook = factsBook
            return player
        }
    }

    /// Makes the output folder (and the folders above it) and checks that it can be written,
    /// before any work is done.
    public static func prepareOutputFolder(_ folder: String) throws(RenderError) {
        do {
            try OutputFolder.make(folder)
        } catch {
            throw RenderError(.output, "cannot use the output folder \(folder)", cause: error.cause ?? error.message)
        }
    }

    /// Runs the whole render. Throws only when output cannot be written.
    public func run() throws(RenderError) -> RenderSummary {
        try options.check(for: storyboard)
        try options.checkOutputPaths()
        try RenderError.checkFont()
        let folder = options.outputFolder
        try StoryRender.prepareOutputFolder(folder)
        try loadFirstFeedPage()
        // A file cut short plays as far as it goes, which looks like the file's own content
        // (half a photo grey, a video ending early): the notices say why.
        warnings += storyboard.cutShortLocalFiles.map(\.description)
        warnings += layoutNotices()
        let canvasSpec = storyboard.canvas
        let fps = canvasSpec.fps
        let plannedFrames = FramePlanner.plannedFrames(storyboard)
        let frameLimit = plannedFrames ?? Int(StoryRender.openEndedLimit * fps)
        // Enough frames in flight to keep every core compressing while the next frame is drawn;
        // the bound is what keeps memory flat. One more than the cores measured as fast as two
        // more, with a canvas less held.
        let writer = FrameWriter(options: options.png, maxInFlight: options.threads + 1, workers: options.threads,
                                 clock: clock)
        defer { writer.close() }
        var frames = 0
        var endTime = 0.0
        // A shard that starts late defers its players and preloads until its first frame,
        // from the first window on.
        let shard = ShardPlan(range: options.frameRange)
        // The frames this render draws end before this one: where `foreseePlayEnds` ends every play.
        let lastFrame = min(frameLimit, shard.range?.upperBound ?? frameLimit)
        if shard.startsLate { setDeferred(true) }
        // Posters of the first window start loading now, while the first player opens its
        // source; the realtime clock waits for them before it starts running.
        planner.appendStories(requestPreloads(navigator))
        if playback == .realtime { settlePreloads(at: 0, waiting: true) }
        var sinks = try sinks(writer: writer, plannedFrames: plannedFrames)
        // Set up without error: from here on the folder is this render's, and a failure must
        // not leave it looking like the earlier render, finished (`PreviousRender`).
        let previous = try PreviousRender.retire(in: folder, replacing: options.outputFiles.map(\.path))
        do throws(RenderError) {
            var pacing = FramePacing(clock: playback, fps: fps, takenAsLate: options.framesTakenAsLate)
            var interrupted: Int32?
            var firstStepMark = 0
            for n in 0..<frameLimit {
                if let signal = options.interruption?.requested {
                    interrupted = signal
                    break
                }
                let t = Double(n) / fps
                if shard.isPast(n) {
                    // An open-ended render steps to the frame at which the viewer finishes before it
                    // ends there; a shard's end may be that frame, so it steps there too (the merge
                    // drops what this records when the next shard records it).
                    if plannedFrames == nil {
                        endTime = t
                        let mark = trace.eventCount
                        step(toFrame: n)
                        // A drag or pull let go before this frame is the next shard's, which steps
                        // here too; if the viewer finishes here, there is no next shard.
                        if !navigator.isFinished { trace.dropReleases(from: mark) }
                    }
                    break
                }
                if shard.startsLate, shard.isFirst(n) { setDeferred(false) }
                guard pacing.waitForFrame(n) else {
                    // A late frame is not drawn, but an open-ended render still steps its viewer
                    // through it: one that finishes there ends the render there, as a frame drawn
                    // in time does, instead of one frame later with a copy in the late one's place.
                    if plannedFrames == nil {
                        // The viewer has moved to t: players stopped or started here are stopped at
                        // or after t if the render ends now (a signal, the limit).
                        endTime = t
                        step(toFrame: n)
                        if navigator.isFinished {
                            pacing.forget(n)
                            break
                        }
                    }
                    continue
                }
                endTime = t
                // What the step to a shard's first frame records is the shard's, though a drag or
                // pull let go since the frame before is timed before the frame.
                if shard.isFirst(n) { firstStepMark = trace.eventCount }
                step(toFrame: n)
                if shard.isFirst(n) { for player in players { player.current?.activate(at: t, previousFrame: t - 1 / fps) } }
                foreseePlayEnds(after: n, lastFrame: lastFrame)
                if plannedFrames == nil && navigator.isFinished { break }
                if shard.fastForwards(n) {
                    // A room decides who is large from its sound frame by frame, drawn or not.
                    for player in players { player.current?.followRoom(at: t) }
                    framesBefore = n + 1
                    continue
                }
                var canvas = writer.reusableCanvas()
                    ?? RGBAImage(width: canvasSpec.width, height: canvasSpec.height, fill: canvasSpec.background)
                compose(at: t, into: &canvas)
                // The guides are the screen's, over the whole frame; only when asked for in an export.
                if options.burnGuides, let platform = options.captionZones { canvas.drawSafeZoneGuides(platform) }
                let opaque = flattenedForOpaqueOutputs(&canvas)
                let frame = DrawnFrame(index: n, time: t, fps: fps, canvas: canvas, opaque: opaque) { count in
                    self.mix(at: t, count: count)
                }
                for index in sinks.indices { try sinks[index].take(frame) }
                frames += 1
                options.progress?(frames, plannedFrames)
            }
            lateFrames = pacing.lateFrames
            clockStartedAt = playback == .realtime ? pacing.startedAt : nil
            // An open-ended shard that stops at its range's end, the viewer still going, was cut by
            // its range, not by the limit; it learns the whole render's frames by counting them.
            let cutByRange = plannedFrames == nil && !navigator.isFinished && interrupted == nil && shard.endsBefore(frameLimit)
            if plannedFrames == nil && !navigator.isFinished && interrupted == nil && !cutByRange {
                warnings.append("stopped after \(StoryRender.openEndedLimit) s of timeline: give \"duration\" for longer renders")
            }
            var finalTime = shard.finalTime(planned: plannedFrames, lastFrameTime: endTime, finished: navigator.isFinished, fps: fps)
            var framesCovered = plannedFrames ?? (framesBefore + frames + lateFrames.count)
            if cutByRange { framesCovered = try StoryRender.countFrames(storyboard, limits: options.limits) }
            if let interrupted {
                // The players stop where the render did; what was written is the whole of it.
                finalTime = endTime
                framesCovered = Int((endTime * fps).rounded()) + 1
                warnings.append("interrupted by signal \(interrupted) after \(frames) frames")
            }
            if interrupted == nil { noteGesturesNeverPerformed(frames: framesCovered, fps: fps) }
            for player in players where player.isPlaying {
                countReachLifts(of: player.current)
                player.stop(at: finalTime)
            }
            for index in sinks.indices { try sinks[index].endFrames(FramesEnding(lateFrames: lateFrames)) }
            let loudness = sinks.lazy.compactMap { ($0 as? ClipTrack)?.loudness }.first
            if let notice = loudness?.notice { warnings.append(notice) }
            // Every preload requested is in the trace, complete, before the trace is cut or written;
            // a probe still waiting for a server is called off rather than waited out.
            // The virtual clock's trace must not depend on how fast the render ran: a probe of a
            // local file ends in milliseconds, so a short render (a shard) waits a moment for it.
            if playback == .virtual { posters.waitForRequests(upTo: StoryRender.probeWaitAtEnd) }
            posters.cancelProbes()
            posters.waitForRequests()
            completePreloads(at: finalTime)
            if !shard.endsBefore(framesCovered) && interrupted == nil { noteUnplayedItemsThatFailed() }
            if let range = shard.range {
                // A shard's trace covers only its range; its stale-frame cleanup would delete the
                // frames of the shards beside it.
                trace.keepEvents(from: Double(range.lowerBound) / fps, releasesFrom: firstStepMark)
            } else if options.writeFrames {
                removeStaleFrames(in: folder, from: framesCovered)
            } else if case let left = StoryRender.frameFiles(in: folder), left > 0 {
                // Not deleted: the user asked for no frames, not for the old ones to go. Removing
                // only those past this render's count, as a PNG render does, left a folder whose
                // first frames came from another render with nothing to say so.
                warnings.append("\(folder) holds \(left) frame PNG\(left == 1 ? "" : "s") from an earlier render, left as they were: "
                                + "this render wrote none (--no-png), so they do not match its trace and summary")
            }
            var summary = summarize(frames: frames, framesCovered: framesCovered)
            summary.interrupted = interrupted != nil
            summary.loudness = loudness
            let written = sinks.lazy.compactMap { $0 as? PNGFrames }.first?.written
            let ending = RenderEnding(summary: summary, trace: trace, folder: folder, fps: fps, writtenFrames: written)
            for sink in sinks { try sink.write(ending) }
            return summary
        } catch {
            throw abandon(after: error, sinks: &sinks, writer: writer, previous: previous)
        }
    }

    /// A feed's first page, before anything is drawn: without stories there is nothing to render.
    private func loadFirstFeedPage() throws(RenderError) {
        guard let feed, stories.isEmpty else { return }
        do {
            let page = try feed.fetchFirst()
            guard !page.stories.isEmpty else { throw RenderError(.feed, "the feed's first page has no stories") }
            accept(page.stories)
            planner.appendStories(page.stories)
        } catch let error as RenderError {
            throw error
        } catch {
            throw RenderError(.feed, "cannot load the feed", cause: "\(error)")
        }
    }

    func setDeferred(_ deferred: Bool) {
        for player in players { player.defersDecoding = deferred }
        defersNewPlayers = deferred
        posters.defersLoads(deferred)
    }

    var defersNewPlayers = false
    /// What a shard's deferred players learned of each file, so each is opened once.
    let factsBook = MediaFactsBook()

    /// The decode limits of a render: the options', with the storyboard's timeouts, protocols and
    /// live latency.
    static func limits(_ limits: DecodeLimits, for storyboard: Storyboard) -> DecodeLimits {
        var limits = limits
        limits.timeouts = storyboard.timeouts
        limits.protocols = storyboard.protocols
        limits.latency = storyboard.latency
        return limits
    }

    /// How many frames a full render writes: the `duration`'s, or, open-ended, what the planner
    /// (`FramePlanner`) finds by following navigation and the items' lengths to the end, each
    /// source opened once and nothing drawn. A feed's stories arrive page by page over the
    /// network as the viewer moves, which only a render follows, so a feed is counted by one.
    public static func countFrames(_ storyboard: Storyboard, limits: DecodeLimits = DecodeLimits()) throws(RenderError) -> Int {
        if let planned = FramePlanner.plannedFrames(storyboard) { return planned }
        guard storyboard.feed != nil else {
            return countFrames(storyboard, lengths: ItemLengths.probing(storyboard, limits: StoryRender.limits(limits, for: storyboard)))
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("live-stories-count-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var options = RenderOptions(outputFolder: folder)
        options.writeFrames = false
        options.frameRange = Int.max / 2..<Int.max
        return try StoryRender(storyboard: storyboard, options: options).run().timelineFrames
    }

    /// How many frames a full render of `storyboard`, not a feed, writes, its items lasting
    /// `lengths`: its duration's, or where the planner finds the viewer done.
    static func countFrames(_ storyboard: Storyboard, lengths: ItemLengths) -> Int {
        if let planned = FramePlanner.plannedFrames(storyboard) { return planned }
        var planner = FramePlanner(storyboard: storyboard, lengths: lengths)
        return planner.countFrames(limit: Int(StoryRender.openEndedLimit * storyboard.canvas.fps))
    }

    /// `frame-000042.png` in `folder`.
    public static func framePath(_ folder: String, _ index: Int) -> String {
        (folder as NSString).appendingPathComponent(String(format: "frame-%06d.png", index))
    }

    /// Messages about the render that are not errors (a poster that failed to load, a gesture
    /// ignored): its own, then preload problems in story order, then the viewer's.
    public var notices: [String] {
        warnings + captions.problems + preloadProblems.keys.sorted().flatMap { preloadProblems[$0]! } + navigator.notices
    }

    /// A gesture timed after the render's last frame (`"at": 100` on a 1 s board, or anything
    /// after a `dismiss`) is never performed: said, as an ignored gesture is, so a typo in a
    /// time is not silent. Every shard says it of the whole render, and the merge keeps one.
    private func noteGesturesNeverPerformed(frames: Int, fps: Double) {
        let lastFrame = Double(max(0, frames - 1)) / fps
        for action in storyboard.script where action.at > lastFrame + PictureTime.slack {
            warnings.append("the \(action.gesture.name) at \(ObjectReader.format(action.at)) s was not performed: "
                + "the render's last frame is at \(ObjectReader.format((lastFrame * 1000).rounded() / 1000)) s")
        }
    }

    // MARK: - Set-up and clean-up

    /// Frames left from an earlier, longer render into the same folder would be mistaken for this one's.
    func removeStaleFrames(in folder: String, from count: Int) {
        StoryRender.removeFrames(in: folder, from: count)
    }

    /// Removes `frame-NNNNNN.png` files numbered `count` and up from `folder`, those `also` keeps.
    static func removeFrames(in folder: String, from count: Int, also: (Int) -> Bool = { _ in true }) {
        for (name, index) in frameFileNames(in: folder) where index >= count && also(index) {
            try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent(name))
        }
    }

    /// How many `frame-NNNNNN.png` files `folder` holds.
    static func frameFiles(in folder: String) -> Int { frameFileNames(in: folder).count }

    /// The `frame-NNNNNN.png` files in `folder`, with their numbers.
    private static func frameFileNames(in folder: String) -> [(name: String, index: Int)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.compactMap { name in
            guard name.hasPrefix("frame-"), name.hasSuffix(".png") else { return nil }
            let digits = name.dropFirst("frame-".count).dropLast(".png".count)
            guard digits.count == 6, let index = Int(digits) else { return nil }
            return (name, index)
        }
    }
}
