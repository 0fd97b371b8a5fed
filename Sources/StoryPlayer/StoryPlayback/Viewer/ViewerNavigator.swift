import Compositor
import Foundation
import StoryModel
import StoryTrace

/// Where the viewer is: the page offset, the story it rests on, and each story's current item.
///
/// It knows nothing of decoding: it turns gestures and item ends into page motion and item
/// changes, so the same navigation can be replayed without drawing a frame.
public struct ViewerNavigator: Sendable {
    /// A page movement in progress.
    enum Motion: Sendable, Equatable {
        /// An eased animation towards a page (a swipe, a release, an auto-advance).
        case animating(from: Double, to: Double, start: Double, duration: Double)
        /// A finger on the screen moving the pages linearly; it stays where it is until release.
        case dragging(from: Double, by: Double, start: Double, over: Double, releaseVelocity: Double? = nil)
        /// A released drag finishing or going back on a spring, from where the finger left.
        case settling(GestureCompletion)
    }

    /// A pull down on the current story (pull to dismiss).
    enum Pull: Sendable, Equatable {
        /// The finger moves the story's pull progress linearly from `from` to `to`; it stays down.
        case pulling(from: Double, to: Double, start: Double, over: Double, releaseVelocity: Double?)
        /// Released short: the story goes back up; the completion animates the progress to 0.
        case returning(GestureCompletion)
        /// Released far or fast: the story closes into its bubble from where it was pulled
        /// (`progress`); the completion animates the blend from 0 (pulled) to 1 (bubble).
        case closing(GestureCompletion, progress: Double)
    }

    public internal(set) var storyCount: Int
    public internal(set) var itemCounts: [Int]
    public let transition: Transition
    /// Page offset p: scroll offset over the page size.
    public internal(set) var pageOffset: Double = 0
    /// The story the viewer last came to rest on.
    public internal(set) var settledPage = 0
    /// Each story's current item (a story resumes where it was).
    public internal(set) var currentItems: [Int]
    /// The last item of the last story has ended, or the viewer has closed.
    public internal(set) var isFinished = false
    /// The viewer has closed (`dismiss`, a finished pull): nothing is shown in it or plays from
    /// then on, and gestures do nothing. An open-ended render ends there; one with a `duration`
    /// shows what is behind the viewer until it ends.
    public internal(set) var isClosed = false
    /// Gestures that could not do anything, for the user (stderr).
    public internal(set) var notices: [String] = []
    var motion: Motion?
    /// The page turn of the motion in progress when its gesture brought its own (a swipe's or a
    /// drag's `transition`); nil: the storyboard's. Gone when the pages come to rest.
    var gestureTransition: GestureTransition?
    var script: [ScriptAction]
    var nextAction = 0
    /// The latest hold: the finger down at `start`, up at `end`.
    public internal(set) var hold: (start: Double, end: Double)?
    /// When `dismiss` began, if it has.
    public internal(set) var dismissedAt: Double?
    let presentation: Presentation?
    let canvas: Canvas
    public let gestureSettings: GestureSettings
    var pull: Pull?
    /// The span a pull holds the current story's media paused: from the finger down until the
    /// story is back in place (open-ended while it is pulled or closing).
    public internal(set) var pullPause: (start: Double, end: Double)?
    /// Every release of a drag or pull so far, in order, for the trace.
    public internal(set) var releases: [GestureRelease] = []

    /// How long the overlay takes to fade out when a hold starts, and back in after it.
    static let overlayFade = 0.2
    /// Pages closer than this to their target are already there.
    static let arrived = 1e-6

    public init(storyboard: Storyboard) {
        storyCount = storyboard.stories.count
        itemCounts = storyboard.stories.map(\.items.count)
        transition = storyboard.transition
        currentItems = Array(repeating: 0, count: storyCount)
        script = storyboard.script
        presentation = storyboard.present
        canvas = storyboard.canvas
        gestureSettings = storyboard.gesture
    }

    /// Stories that arrived later (the next page of a feed).
    public mutating func appendStories(itemCounts counts: [Int]) {
        storyCount += counts.count
        itemCounts += counts
        currentItems += Array(repeating: 0, count: counts.count)
    }

    // MARK: - Time

    /// Applies every gesture due by `t`, each at its own moment, then moves the pages to `t`.
    public mutating func advance(to t: Double) {
        while nextAction < script.count && script[nextAction].at <= t + 1e-9 {
            let action = script[nextAction]
            nextAction += 1
            move(to: action.at)
            perform(action.gesture, at: action.at)
        }
        move(to: t)
        if let dismissedAt, t >= dismissedAt + presentDuration - 1e-9 { close() }
        if case .closing(let completion, _)? = pull, completion.isDone(at: t) { close() }
    }

    /// The current item of the resting story has ended at `t`: play the next item, or swipe to
    /// the next story (auto-advance), or finish after the last one.
    public mutating func currentItemEnded(at t: Double) {
        let story = settledPage
        if currentItems[story] + 1 < itemCounts[story] {
            currentItems[story] += 1
        } else if story + 1 < storyCount {
            startAnimation(to: Double(story + 1), at: t)
        } else {
            isFinished = true
        }
    }

    private mutating func close() {
        isFinished = true
        isClosed = true
    }

    // MARK: - Which stories play

    /// The page geometry in use now: the storyboard's, or a swipe's own style while it runs.
    public var geometry: PageTransition {
        guard motion != nil, let gestureTransition else { return transition.geometry }
        return gestureTransition.applied(to: transition.geometry)
    }

    /// The stories on screen, as (story, item) pairs.
    public var visibleStories: [(story: Int, item: Int)] {
        // A closed viewer shows no story: with a `duration`, a dismissed story kept playing
        // inside its bubble to the end, and a tap after the dismiss opened the next one there.
        guard !isClosed else { return [] }
        return geometry.visiblePages(pageOffset: pageOffset).map { ($0, currentItems[$0]) }
    }

    /// The stories whose players should exist now. With `start: settle`, a story revealed by a
    /// moving page waits for the page to land.
    public var playingStories: [(story: Int, item: Int)] {
        let visible = visibleStories
        guard transition.start == .settle, isMoving else { return visible }
        return visible.filter { $0.story == settledPage }
    }
}
