import Compositor

/// A storyboard (version 1): the stories to play and the gestures that drive the viewer.
public struct Storyboard: Sendable {
    /// The storyboard format this renderer reads (the optional top-level `"version"`).
    public static let version = 1.0

    public var canvas: Canvas
    public var transition: Transition
    /// Timeline seconds to render; nil means "until the last item of the last story ends".
    public var duration: Double?
    /// The lengths, in seconds, a storyboard's or an item's duration may have (up to a day), and
    /// the times a gesture may be scripted at.
    public static let durations = 0.001...86_400
    public var stories: [Story]
    /// Gestures, ordered by time.
    public var script: [ScriptAction]
    /// The script's `pin` and `unpin` actions, in time order.
    public var roomActions: [RoomAction] = []
    /// The folder relative paths resolve against.
    public var folder: String
    /// A digest of the JSON text it was read from (`digest`), which a shard's summary records
    /// so that `merge` can tell shards of one storyboard; nil for one built in code.
    public var sourceDigest: String?
    /// How timeline time relates to wall-clock time.
    public var clock: PlaybackClock = .virtual
    /// Hard limits on waiting for the network.
    public var timeouts = Timeouts()
    /// How far behind their live edge live items play (`latency`); an item's own block wins.
    public var latency = LiveLatency()
    /// How a story looks while its first frame is pending.
    public var loading = LoadingLook()
    /// Protocols FFmpeg may use, narrowing (never widening) each source's own list; nil keeps them.
    public var protocols: [String]?
    /// The safe area the overlay keeps to, in pixels at 720 wide.
    public var overlayInset: Double = Storyboard.defaultOverlayInset
    public static let defaultOverlayInset = 16.0
    /// Stories around the current one whose posters and metadata are loaded ahead.
    public var preload = PreloadWindow()
    /// The viewer opens from a story bubble, when set.
    public var present: Presentation?
    /// Stories come from a paged feed instead of `stories`.
    public var feed: Feed?
    /// How released drags and pulls decide and animate (`gesture`).
    public var gesture = GestureSettings()
    /// The app screen behind the viewer while it opens, is pulled or closes (`backdrop`); nil
    /// keeps the plain canvas background, undimmed.
    public var backdrop: Backdrop?
    /// A music track under the stories' sound for the whole render (`music`).
    public var music: MusicBed?

    public init(canvas: Canvas = Canvas(), transition: Transition = Transition(), duration: Double? = nil,
                stories: [Story], script: [ScriptAction] = [], folder: String = ".") {
        self.canvas = canvas
        self.transition = transition
        self.duration = duration
        self.stories = stories
        self.script = script
        self.folder = folder
    }
}

/// How timeline time relates to wall-clock time.
public enum PlaybackClock: String, Sendable, CaseIterable {
    /// Frame n shows n / fps; files decode on demand; output is deterministic.
    case virtual
    /// Timeline time is wall-clock time since the render started, as on a phone.
    case realtime
}

/// The storyboard's `timeouts` block, in seconds.
public struct Timeouts: Sendable, Equatable {
    /// The seconds an open or read timeout may be: long enough for a slow network, short enough
    /// that a dead one cannot hold a render for more than ten minutes per wait.
    public static let allowed = 0.1...600

    /// Opening a source (connecting, reading headers).
    public var open: Double = 8
    /// A read that brings no data.
    public var read: Double = 10
    /// Reconnects of a live item whose connection drops.
    public var retries: Int = 3

    public init(open: Double = 8, read: Double = 10, retries: Int = 3) {
        self.open = open
        self.read = read
        self.retries = retries
    }
}

/// The storyboard's `loading` block: the blurred poster shown until the first frame.
public struct LoadingLook: Sendable, Equatable {
    /// Blur radius in pixels at 720 wide, scaled with the canvas.
    public var blur: Double = 24
    /// Crossfade from the poster to video, in seconds (0 for a cut).
    public var fade: Double = 0.15

    public init(blur: Double = 24, fade: Double = 0.15) {
        self.blur = blur
        self.fade = fade
    }
}

/// LinkedIn's preload window: one story behind, two ahead.
public struct PreloadWindow: Sendable, Equatable {
    public var behind = 1
    public var ahead = 2
    public init(behind: Int = 1, ahead: Int = 2) {
        self.behind = behind
        self.ahead = ahead
    }
}

/// `present`: the viewer grows out of a story bubble, and `dismiss` shrinks it back.
public struct Presentation: Sendable, Equatable {
    /// The bubble's centre (fractions of the width and height) and radius (fraction of the width).
    public var x: Double, y: Double, r: Double
    public var duration: Double = Presentation.defaultDuration
    /// How long opening and closing take when the storyboard does not say (also `dismiss`
    /// without `present`).
    public static let defaultDuration = 0.35
    /// The bubble in the centre of the screen: where a viewer opens from when `present` names no
    /// `from`, and closes into when nothing is presented.
    public static let centreBubble = (x: 0.5, y: 0.5, r: 0.08)

    /// The bubble the viewer opens from and closes into: `presentation`'s, or the centre one.
    public static func bubble(of presentation: Presentation?) -> (x: Double, y: Double, r: Double) {
        presentation.map { (x: $0.x, y: $0.y, r: $0.r) } ?? centreBubble
    }

    public init(x: Double, y: Double, r: Double, duration: Double = Presentation.defaultDuration) {
        self.x = x
        self.y = y
        self.r = r
        self.duration = duration
    }
}

/// The storyboard's `gesture` block: when a released drag or pull finishes, and how it moves on.
public struct GestureSettings: Sendable, Equatable {
    /// How a released transition completes (or goes back).
    public enum Curve: String, Sendable, CaseIterable {
        /// A damped spring that starts at the finger's velocity.
        case spring
        /// A cubic ease-out over the remaining distance.
        case easeOut = "ease_out"
    }

    /// A transition past this progress finishes unless flicked back.
    public var finishProgress: Double = 0.5
    /// A flick faster than this (px/s at 720 wide, scaled with the canvas) decides the outcome.
    public var flickVelocity: Double = 500
    /// The spring's period in seconds (2π / its natural frequency).
    public var springResponse: Double = 0.25
    /// The spring's damping ratio: 1 is critical (no bounce), below 1 it bounces.
    public var springDamping: Double = 0.98
    public var curve: Curve = .spring

    public init(finishProgress: Double = 0.5, flickVelocity: Double = 500, springResponse: Double = 0.25,
                springDamping: Double = 0.98, curve: Curve = .spring) {
        self.finishProgress = finishProgress
        self.flickVelocity = flickVelocity
        self.springResponse = springResponse
        self.springDamping = springDamping
        self.curve = curve
    }
}

/// The storyboard's `backdrop` block: what shows behind the viewer, blurred and dimmed as much as
/// the viewer is open.
public struct Backdrop: Sendable, Equatable {
    /// A picture of the app screen; nil shows the canvas background.
    public var picture: MediaSource?
    /// Blur radius in pixels at 720 wide (scaled with the canvas) when the viewer is fully open.
    public var blur: Double = 24
    /// How much darker the backdrop is when the viewer is fully open (0 none, 1 black).
    public var dim: Double = 0.6

    public init(picture: MediaSource? = nil, blur: Double = 24, dim: Double = 0.6) {
        self.picture = picture
        self.blur = blur
        self.dim = dim
    }
}

/// `feed`: pages of stories fetched as the viewer nears the end of what it has.
public struct Feed: Sendable, Equatable {
    public var url: String
    public var pageSize: Int = 10
    public init(url: String, pageSize: Int = 10) {
        self.url = url
        self.pageSize = pageSize
    }
}

/// The phone screen the viewer renders to.
public struct Canvas: Sendable, Equatable {
    /// The widths and heights a canvas may have, in pixels.
    public static let sides = 16...8192
    /// The frame rates a canvas may have.
    public static let frameRates = 1.0...240

    public var width: Int = 720
    public var height: Int = 1280
    public var fps: Double = 30
    /// What shows where no story is (around a turning cube, beside a sliding page, outside the
    /// bubble). It may be transparent, wholly or partly: frames keep its alpha with `--alpha`;
    /// a story's face is always opaque.
    public var background: RGBAColor = .black
    /// How items' pictures of another shape fill the screen, unless an item says (`"fit"`).
    public var fit: PictureFit = .cover

    public init(width: Int = 720, height: Int = 1280, fps: Double = 30, background: RGBAColor = .black) {
        self.width = width
        self.height = height
        self.fps = fps
        self.background = background
    }
}

/// When a story revealed by a swipe gets its player.
public enum PlaybackStart: String, Sendable, CaseIterable {
    /// As soon as any part of it is visible (Periscope).
    case reveal
    /// Only when the swipe lands on it; until then its face shows the poster (Instagram).
    case settle
}

/// The storyboard's `transition` block.
public struct Transition: Sendable, Equatable {
    public var geometry = PageTransition()
    /// Seconds a full swipe takes.
    public var duration: Double = 0.35
    public var start: PlaybackStart = .reveal

    public init(geometry: PageTransition = PageTransition(), duration: Double = 0.35, start: PlaybackStart = .reveal) {
        self.geometry = geometry
        self.duration = duration
        self.start = start
    }
}

/// One story: a run of items from one author or broadcast.
public struct Story: Sendable, Equatable {
    public var id: String
    /// A still shown before the first frame arrives.
    public var poster: MediaSource?
    public var items: [StoryItem]
    /// A WebVTT or SRT file (its path resolved), for the items without their own, on the story's
    /// time (`Storyboard+Captions`).
    public var captions: String?
    /// Text and stickers over every item of the story, on the story's time.
    public var layers: [StoryLayer] = []
    /// A song of the story's own (`music`, as a phone's music sticker): on the story's time,
    /// heard by its share of the screen, ducked under its own sound, paused while it is held.
    public var music: MusicBed?

    public init(id: String, poster: MediaSource? = nil, items: [StoryItem]) {
        self.id = id
        self.poster = poster
        self.items = items
    }
}

/// A photo, a video file or a stream.
public struct StoryItem: Sendable, Equatable {
    public var source: MediaSource
    /// For videos, a cap on the media duration; for photos, how long they show (default 5 s);
    /// for live items, how long they play (default 10 s).
    public var duration: Double?
    /// A stream with no natural end.
    public var isLive: Bool
    /// A still shown while this item loads, before the story's own poster.
    public var poster: MediaSource?
    /// A room's participants, when the story is a live room (its one item lasts `duration`).
    public var room: Room?
    /// The item's own `latency` block, over the storyboard's.
    public var latency: LiveLatency?
    /// A WebVTT or SRT file (its path resolved), on the item's media time.
    public var captions: String?
    /// The gain of its sound in the mix, 0…2 (`"volume"`: a number, or decibels as `"-6dB"`).
    public var volume = 1.0
    /// Its sound left out of the mix (`"muted"`); the picture plays on.
    public var muted = false
    /// What its sound is multiplied by in the mix.
    public var gain: Double { muted ? 0 : volume }
    /// Text and stickers over it, on its own time.
    public var layers: [StoryLayer] = []

    public init(source: MediaSource, duration: Double? = nil, isLive: Bool = false, poster: MediaSource? = nil) {
        self.source = source
        self.duration = duration
        self.isLive = isLive
        self.poster = poster
    }

    /// How long a live item plays when the item does not say.
    public static let defaultLiveDuration = 10.0

    /// How long a photo shows when the item does not say.
    public static let defaultPhotoDuration = 5.0
}

/// A swipe's or drag's own page turn (`"transition"` on the gesture): its style and axis over
/// the storyboard's, for that turn only, so one vertical cube can sit among horizontal ones.
public struct GestureTransition: Sendable, Equatable {
    public var style: TransitionStyle?
    public var axis: TransitionAxis?

    public init(style: TransitionStyle? = nil, axis: TransitionAxis? = nil) {
        self.style = style
        self.axis = axis
    }

    /// `geometry` with this turn's style and axis where it names them.
    public func applied(to geometry: PageTransition) -> PageTransition {
        var turned = geometry
        if let style { turned.style = style }
        if let axis { turned.axis = axis }
        return turned
    }
}

/// A gesture at a moment of the timeline.
public struct ScriptAction: Sendable, Equatable {
    public enum Direction: String, Sendable, CaseIterable {
        case next, previous
        package var step: Int { self == .next ? 1 : -1 }
    }

    public enum Gesture: Sendable, Equatable {
        /// An animated swipe to the next or previous story, optionally in another style than the
        /// storyboard's (a demo can show a cube turn and a slide).
        case swipe(Direction, transition: GestureTransition? = nil)
        /// The finger moves the page offset by `pages` over `seconds`; nothing lands until release.
        /// `releaseVelocity` (px/s at 720 wide, positive towards the next story) scripts the
        /// finger's speed at release instead of measuring it.
        case drag(pages: Double, seconds: Double, releaseVelocity: Double? = nil, transition: GestureTransition? = nil)
        /// The finger pulls the current story down to `progress` of the screen height over
        /// `seconds` and stays down; `releaseVelocity` (px/s at 720 wide, positive downwards) as
        /// for a drag.
        case pull(progress: Double, seconds: Double, releaseVelocity: Double? = nil)
        /// The finger lifts: a drag or pull finishes or goes back, by progress and velocity.
        case release
        /// A tap at a horizontal fraction of the screen: the left third goes back, the rest forward.
        case tap(x: Double)
        /// A finger held down: the current item pauses for `seconds`, and the overlay fades out.
        case hold(seconds: Double)
        /// The viewer closes into its bubble (or the centre); the render then ends.
        case dismiss
    }

    /// Timeline seconds.
    public var at: Double
    public var gesture: Gesture

    public init(at: Double, gesture: Gesture) {
        self.at = at
        self.gesture = gesture
    }
}
