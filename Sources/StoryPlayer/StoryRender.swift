import Compositor
import Foundation

/// Settings of a render that are not in the storyboard.
public struct RenderOptions: Sendable {
    public var outputFolder: String
    public var png = PNGOptions()
    /// Draw UI elements over the stories (none yet; later issues add them).
    public var overlay = true
    public var limits = DecodeLimits()
    /// Rasterizer threads; defaults to one per core.
    public var threads = Rasterizer.defaultThreadCount
    /// Called after each frame with (frames done, frames planned or nil when open-ended).
    public var progress: (@Sendable (Int, Int?) -> Void)?
    /// Overrides the storyboard's `clock`.
    public var clock: PlaybackClock?

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
    private let players: [StoryPlayer]
    private let rasterizer: Rasterizer
    private var loadingCards: LoadingCards?
    private var warnings: [String] = []
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
        let clock = self.clock
        players = storyboard.stories.map {
            StoryPlayer(story: $0, canvas: storyboard.canvas, limits: limits, clock: clock, playback: playback, trace: trace)
        }
        rasterizer = Rasterizer(threads: options.threads)
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
        let cards = LoadingCards(storyboard: storyboard, limits: limits)
        warnings += cards.warnings
        loadingCards = cards
        let fps = canvasSpec.fps
        let plannedFrames = storyboard.duration.map { Int(($0 * fps - 1e-9).rounded(.up)) }
        let frameLimit = plannedFrames ?? Int(StoryRender.openEndedLimit * fps)
        // Enough frames in flight to keep every core compressing while the next frame is drawn;
        // the bound is what keeps memory flat.
        let writer = FrameWriter(options: options.png, maxInFlight: options.threads + 2, clock: clock)
        var frames = 0
        var endTime = 0.0
        let started = ContinuousClock.now
        for n in 0..<frameLimit {
            let t = Double(n) / fps
            if playback == .realtime {
                // Timeline time is wall time: wait for the frame's moment, or skip it if the next
                // frame's moment has already passed. Time is never stretched.
                let due = started + .nanoseconds(Int64(t * 1e9))
                let now = ContinuousClock.now
                if now < due {
                    Thread.sleep(forTimeInterval: Double((due - now).components.attoseconds) / 1e18 + Double((due - now).components.seconds))
                } else if now > due + .nanoseconds(Int64(1e9 / fps)) {
                    lateFrames.append(n)
                    continue
                }
            }
            endTime = t
            step(to: t)
            if plannedFrames == nil && navigator.isFinished { break }
            var canvas = writer.reusableCanvas()
                ?? RGBAImage(width: canvasSpec.width, height: canvasSpec.height, fill: canvasSpec.background)
            compose(at: t, into: &canvas)
            writer.submit(canvas, to: StoryRender.framePath(folder, n))
            frames += 1
            if let error = writer.error {
                throw RenderError(.output, "cannot write frame \(n)", cause: error.description)
            }
            options.progress?(frames, plannedFrames)
        }
        if plannedFrames == nil && !navigator.isFinished {
            warnings.append("stopped after \(StoryRender.openEndedLimit) s of timeline: give \"duration\" for longer renders")
        }
        let finalTime = plannedFrames.map { Double($0) / fps } ?? endTime
        let framesCovered = plannedFrames ?? (frames + lateFrames.count)
        for player in players where player.isPlaying { player.stop(at: finalTime) }
        do {
            try writer.finish()
        } catch {
            throw RenderError(.output, "cannot write frames", cause: error.description)
        }
        removeStaleFrames(in: folder, from: framesCovered)
        var summary = RenderSummary(frames: frames, wallSeconds: trace.wall, stories: storyboard.stories,
                                    trace: trace, notices: warnings + navigator.notices,
                                    stageSeconds: clock.seconds, cores: Rasterizer.defaultThreadCount)
        summary.clock = playback
        summary.lateFrames = lateFrames
        do {
            try AtomicFile.write(Array(trace.jsonLines.utf8), to: (folder as NSString).appendingPathComponent("lifecycle.jsonl"))
            try AtomicFile.write(Array(summary.json.utf8), to: (folder as NSString).appendingPathComponent("summary.json"))
        } catch {
            throw RenderError(.output, "cannot write the trace or summary", cause: error.description)
        }
        return summary
    }

    /// `frame-000042.png` in `folder`.
    public static func framePath(_ folder: String, _ index: Int) -> String {
        (folder as NSString).appendingPathComponent(String(format: "frame-%06d.png", index))
    }

    /// Messages about the render that are not errors (a poster that failed to load, a gesture ignored).
    public var notices: [String] { warnings + navigator.notices }

    // MARK: - One frame

    /// Navigation and lifecycle up to timeline time `t`.
    private func step(to t: Double) {
        navigator.advance(to: t)
        syncPlayers(at: t)
        // An item ends only while its story rests on screen; a page in motion holds its items.
        if !navigator.isMoving, !navigator.isFinished, let player = players[navigator.settledPage].current,
           player.hasEnded(at: t) {
            player.markEnded(at: t)
            navigator.currentItemEnded(at: t)
            navigator.advance(to: t)
            syncPlayers(at: t)
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
        let faces = placements.map { TexturedFace(texture: texture(forStory: $0.page, at: t), placement: $0) }
        rasterizer.draw(faces, background: storyboard.canvas.background, into: &canvas, clock: clock)
    }

    /// A playing story shows its video (after a short crossfade from its loading picture if the
    /// first frame took time to come); a failed one its error card; a loading one its blurred
    /// poster with a spinner; one that is not playing (start: settle) its blurred poster.
    private func texture(forStory index: Int, at t: Double) -> RGBAImage {
        let item = navigator.currentItems[index]
        guard let player = players[index].current else {
            return loadingCards?.picture(story: index, item: item, at: t, spinner: false) ?? backgroundCard
        }
        if player.isFailed { return errorCard }
        let picture = player.picture(at: t)
        if player.isFailed { return errorCard }
        let loading = { self.loadingCards?.picture(story: index, item: player.itemIndex, at: t, spinner: self.options.overlay)
            ?? self.backgroundCard }
        guard let picture else { return loading() }
        let fade = storyboard.loading.fade
        if let shownAt = player.firstFrameAt, shownAt > player.startedAt, fade > 0, t - shownAt < fade {
            return loading().crossfaded(to: picture, amount: (t - shownAt) / fade)
        }
        return picture
    }

    private lazy var errorCard = RGBAImage(width: storyboard.canvas.width, height: storyboard.canvas.height,
                                           fill: ErrorCard.color)
    private lazy var backgroundCard = RGBAImage(width: storyboard.canvas.width, height: storyboard.canvas.height,
                                                fill: storyboard.canvas.background)

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
