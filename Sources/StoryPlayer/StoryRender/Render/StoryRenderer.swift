import Compositor
import Foundation
import StoryBase
import StoryEncode
import StoryMedia
import StoryModel
import StoryPlayback
import StoryTrace

/// Renders a storyboard to `frame-NNNNNN.png`, `lifecycle.jsonl` and `summary.json`.
///
/// The clock is virtual: frame n shows timeline time n / fps, and files decode on demand, so
/// two renders of the same storyboard give byte-identical frames.
public final class StoryRenderer {
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
    var players: [StoryPlaybackController]
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
    /// Frames not drawn because the realtime render fell behind (a recording: the last
    /// `recordingListsLateFrames` of them).
    public internal(set) var lateFrames: [Int] = []
    /// How many frames were not drawn, listed or not.
    var lateFrameCount = 0
    /// The late frames a recording lists in its summary: the last ones, whatever the hours.
    static let recordingListsLateFrames = 1000

    /// How many late frames this render keeps: all, but in a recording that writes no PNG for
    /// every frame (`--frames-every 1` fills each late frame's PNG from the list at the end).
    var listsLateFrames: Int {
        guard let record = options.record, record.framesEvery != 1 else { return .max }
        return StoryRenderer.recordingListsLateFrames
    }
    /// When frame 0 was due, in seconds since 1970 (realtime clock only).
    public internal(set) var clockStartedAt: Double?
    /// A recording's outputs' events and states (`record`).
    let outputLog = OutputLog()
    /// Frames the realtime clock was too late for so far (a recording's running summary).
    var lateFramesSoFar = 0
    /// The participants of the rooms last seen on screen, and their states (`RecordFigures`).
    var participantsLastShown: [(story: String, participant: String, state: String)] = []
    /// When the rooms on screen were last seen empty (`--until-empty`).
    var emptySince: Double?
    /// The navigator's gesture releases already in the trace.
    var recordedReleases = 0
    /// The backdrop behind an opening, pulled or closing viewer, made on first use.
    var backdrop: BackdropBlur?
    /// The storyboard's music, once its first frame's sound asked for it.
    var music: MusicState = .unread
    /// Each story's own song (by story index), once its sound was first asked for.
    var storyMusics: [Int: MusicState] = [:]
    enum MusicState {
        case unread, unreadable
        case ready(MusicMix)
    }

    /// The longest open-ended render: a safety net, since every item has a finite length.
    public static let openEndedLimit = FramePlanner.openEndedLimit

    /// How long a virtual render waits at its end for the probes still under way before calling
    /// them off: long enough for a local file's, short enough that a dead server costs little.
    static let probeWaitAtEnd = 1.0

    /// The captions of the storyboard's stories, drawn on their faces (`StoryCaptions`).
    let captions: StoryCaptions
    /// The text and stickers of the storyboard's stories, drawn on their faces (`StoryLayers`).
    let layers: StoryLayers
    /// The plan of the frame last stepped to: the media time each caption is drawn at.
    var framePlan: FramePlan?

    /// The error card of each failed play, made once (player id → card).
    var errorCards: [Int: RGBAImage] = [:]
    /// An overlay-only render's picture for every face, made on its first frame.
    var transparentFace: RGBAImage?
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
        let storyboard = options.overlayOnly ? storyboard.withNothingBehindTheStories : storyboard
        self.storyboard = storyboard
        self.options = options
        let trace = LifecycleTrace()
        self.trace = trace
        // The render's items end when its players say so, so the planner needs no lengths.
        planner = FramePlanner(storyboard: storyboard,
                               lengths: ItemLengths(lengths: storyboard.stories.map { $0.items.map { _ in nil } }))
        var limits = StoryRenderer.limits(options.limits, for: storyboard)
        // A recording's live players keep their latency target: it runs for hours, and a
        // player that plays further behind after each rebuffer leaves its pictures seconds old
        // and apart from the sound.
        if options.record != nil { limits.latency.holdsTarget = true }
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
        layers = StoryLayers(canvasWidth: storyboard.canvas.width, limits: limits)
        addPlayers(for: stories)
    }

    func addPlayers(for newStories: [Story]) {
        let clock = self.clock
        players += newStories.map {
            let player = StoryPlaybackController(story: $0, canvas: storyboard.canvas, limits: limits, clock: clock, playback: playback,
                                                 interruption: options.interruption, trace: trace)
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
        try prepareToRun()
        let range = RenderFrames(storyboard: storyboard, range: options.frameRange, endless: options.record != nil)
        // Enough frames in flight to keep every core compressing while the next frame is drawn;
        // the bound is what keeps memory flat. One more than the cores measured as fast as two
        // more, with a canvas less held.
        let writer = FrameWriter(options: options.png, maxInFlight: options.threads + 1, workers: options.threads,
                                 clock: clock)
        defer { writer.close() }
        // A shard that starts late defers its players and preloads until its first frame,
        // from the first window on.
        if range.shard.startsLate { setDeferred(true) }
        // Posters of the first window start loading now, while the first player opens its
        // source; the realtime clock waits for them before it starts running.
        planner.appendStories(requestPreloads(navigator))
        if playback == .realtime { settlePreloads(at: 0, waiting: true) }
        var sinks = try sinks(writer: writer, plannedFrames: range.planned)
        // Set up without error: from here on the folder is this render's, and a failure must
        // not leave it looking like the earlier render, finished (`PreviousRender`).
        let previous = try PreviousRender.retire(in: options.outputFolder, replacing: options.outputFiles.map(\.path))
        do throws(RenderError) {
            let progress = try drawFrames(range, writer: writer, sinks: &sinks)
            return try finish(progress, range, sinks: &sinks)
        } catch {
            throw abandon(after: error, sinks: &sinks, writer: writer, previous: previous)
        }
    }

    /// Checks the options against the storyboard and the machine (the font), makes the output
    /// folder and loads a feed's first page: everything that may fail before any work is done.
    private func prepareToRun() throws(RenderError) {
        try options.check(for: storyboard)
        try options.checkOutputPaths()
        try RenderError.checkFont()
        try StoryRenderer.prepareOutputFolder(options.outputFolder)
        try loadFirstFeedPage()
        // A file cut short plays as far as it goes, which looks like the file's own content
        // (half a photo grey, a video ending early): the notices say why.
        warnings += storyboard.cutShortLocalFiles.map(\.description)
        warnings += layoutNotices()
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
            return countFrames(storyboard, lengths: ItemLengths.probing(storyboard, limits: StoryRenderer.limits(limits, for: storyboard)))
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("live-stories-count-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var options = RenderOptions(outputFolder: folder)
        options.writeFrames = false
        options.frameRange = Int.max / 2..<Int.max
        return try StoryRenderer(storyboard: storyboard, options: options).run().timelineFrames
    }

    /// How many frames a full render of `storyboard`, not a feed, writes, its items lasting
    /// `lengths`: its duration's, or where the planner finds the viewer done.
    static func countFrames(_ storyboard: Storyboard, lengths: ItemLengths) -> Int {
        if let planned = FramePlanner.plannedFrames(storyboard) { return planned }
        var planner = FramePlanner(storyboard: storyboard, lengths: lengths)
        return planner.countFrames(limit: Int(StoryRenderer.openEndedLimit * storyboard.canvas.fps))
    }

    /// `frame-000042.png` in `folder`.
    public static func framePath(_ folder: String, _ index: Int) -> String {
        (folder as NSString).appendingPathComponent(String(format: "frame-%06d.png", index))
    }

    /// Messages about the render that are not errors (a poster that failed to load, a gesture
    /// ignored): its own, then preload problems in story order, then the viewer's.
    public var notices: [String] {
        warnings + captions.problems + layers.problems + preloadProblems.keys.sorted().flatMap { preloadProblems[$0]! } + navigator.notices
    }

    /// A gesture timed after the render's last frame (`"at": 100` on a 1 s board, or anything
    /// after a `dismiss`) is never performed: said, as an ignored gesture is, so a typo in a
    /// time is not silent. Every shard says it of the whole render, and the merge keeps one.
    func noteGesturesNeverPerformed(frames: Int, fps: Double) {
        let lastFrame = Double(max(0, frames - 1)) / fps
        for action in storyboard.script where action.at > lastFrame + PictureTime.slack {
            warnings.append("the \(action.gesture.name) at \(ObjectReader.format(action.at)) s was not performed: "
                + "the render's last frame is at \(ObjectReader.format((lastFrame * 1000).rounded() / 1000)) s")
        }
    }

    // MARK: - Set-up and clean-up

    /// Frames left from an earlier, longer render into the same folder would be mistaken for this one's.
    func removeStaleFrames(in folder: String, from count: Int) {
        StoryRenderer.removeFrames(in: folder, from: count)
    }

    /// Removes `frame-NNNNNN.png` files numbered `count` and up from `folder`, up to `end` (a
    /// shard's range) when given.
    static func removeFrames(in folder: String, from count: Int, before end: Int? = nil) {
        for (name, index) in frameFileNames(in: folder) where index >= count && index < end ?? .max {
            try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent(name))
        }
    }

    /// How many `frame-NNNNNN.png` files `folder` holds.
    static func frameFiles(in folder: String) -> Int { frameFileNames(in: folder).count }

    /// The `frame-NNNNNN.png` files in `folder`, with their numbers.
    static func frameFileNames(in folder: String) -> [(name: String, index: Int)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.compactMap { name in
            guard name.hasPrefix("frame-"), name.hasSuffix(".png") else { return nil }
            let digits = name.dropFirst("frame-".count).dropLast(".png".count)
            guard digits.count == 6, let index = Int(digits) else { return nil }
            return (name, index)
        }
    }
}
