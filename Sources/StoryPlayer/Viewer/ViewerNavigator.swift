import Compositor
import Foundation

/// Where the viewer is: the page offset, the story it rests on, and each story's current item.
///
/// It knows nothing of decoding: it turns gestures and item ends into page motion and item
/// changes, so the same navigation can be replayed without drawing a frame.
public struct ViewerNavigator: Sendable {
    /// A page movement in progress.
    enum Motion: Sendable, Equatable {
        /// An eased animation towards a page (a swipe, a release, an auto-advance).
        case animating(from: Double, to: Double, start: Double, duration: Double, style: TransitionStyle)
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

    public private(set) var storyCount: Int
    public private(set) var itemCounts: [Int]
    public let transition: Transition
    /// Page offset p: scroll offset over the page size.
    public private(set) var pageOffset: Double = 0
    /// The story the viewer last came to rest on.
    public private(set) var settledPage = 0
    /// Each story's current item (a story resumes where it was).
    public private(set) var currentItems: [Int]
    /// The last item of the last story has ended.
    public private(set) var isFinished = false
    /// Gestures that could not do anything, for the user (stderr).
    public private(set) var notices: [String] = []
    private var motion: Motion?
    private var script: [ScriptAction]
    private var nextAction = 0
    /// The latest hold: the finger down at `start`, up at `end`.
    public private(set) var hold: (start: Double, end: Double)?
    /// When `dismiss` began, if it has.
    public private(set) var dismissedAt: Double?
    private let presentation: Presentation?
    private let canvas: Canvas
    public let gestureSettings: GestureSettings
    private var pull: Pull?
    /// The span a pull holds the current story's media paused: from the finger down until the
    /// story is back in place (open-ended while it is pulled or closing).
    public private(set) var pullPause: (start: Double, end: Double)?
    /// Every release of a drag or pull so far, in order, for the trace.
    public private(set) var releases: [GestureRelease] = []

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

    // MARK: - Hold, overlay, presentation

    /// Whether a finger holds the current item at `t`.
    public func isHeld(at t: Double) -> Bool {
        guard let hold else { return false }
        return t >= hold.start && t < hold.end
    }

    /// The overlay's opacity: it fades out while a finger holds the story, as in Instagram.
    public func overlayOpacity(at t: Double) -> Double {
        guard let hold, t >= hold.start else { return 1 }
        if t < hold.end { return max(0, 1 - (t - hold.start) / Self.overlayFade) }
        return min(1, (t - hold.end) / Self.overlayFade)
    }

    /// How long the bubble takes to open or close.
    private var presentDuration: Double { presentation?.duration ?? Presentation.defaultDuration }

    /// The bubble transform of the opening (`present`) or closing (`dismiss`) animation at `t`, or
    /// nil when the viewer is simply full screen.
    public func bubbleTransform(at t: Double, width: Int, height: Int) -> BubbleTransform? {
        let duration = presentDuration
        let bubble = self.bubble
        if dismissedAt == nil || t < dismissedAt!, let pulled = pullTransform(at: t, width: width, height: height) {
            return pulled
        }
        if let dismissedAt, t >= dismissedAt {
            let progress = min(1, (t - dismissedAt) / duration)
            var transform = BubbleTransform.opening(from: bubble, progress: 1 - Self.easeOut(progress), width: width, height: height)
            // The finger pulls the viewer down as it closes.
            transform.centre.y += sin(Double.pi * progress) * 0.08 * Double(height)
            return transform
        }
        if let presentation, t < presentation.duration {
            return BubbleTransform.opening(from: bubble, progress: Self.easeOut(t / presentation.duration), width: width, height: height)
        }
        return nil
    }

    /// How open the viewer is at `t`: 1 full screen, 0 closed into its bubble or pulled all the
    /// way down. The backdrop is blurred and dimmed in proportion.
    public func openness(at t: Double) -> Double {
        if let dismissedAt, t >= dismissedAt {
            return 1 - Self.easeOut(min(1, (t - dismissedAt) / presentDuration))
        }
        switch pull {
        case .closing(let completion, let progress)?:
            return (1 - progress) * (1 - min(max(completion.fraction(at: t), 0), 1))
        case .pulling?, .returning?:
            return 1 - pullProgress(at: t)
        case nil:
            break
        }
        if let presentation, t < presentation.duration { return Self.easeOut(t / presentation.duration) }
        return 1
    }

    /// The bubble the viewer opens from and closes into: `present.from`, or a small one in the centre.
    private var bubble: (x: Double, y: Double, r: Double) {
        presentation.map { (x: $0.x, y: $0.y, r: $0.r) } ?? (x: 0.5, y: 0.5, r: 0.08)
    }

    public var isMoving: Bool { motion != nil }

    // MARK: - Pull to dismiss

    /// Whether a pull holds the current story (the finger down, or the story going back or closing).
    public var isPulled: Bool { pull != nil }

    /// How far the story is pulled down at `t`, 0…1 of the screen height (0 without a pull; while
    /// closing, where it was released).
    public func pullProgress(at t: Double) -> Double {
        switch pull {
        case let .pulling(from, to, start, over, _)?:
            let s = over > 0 ? min(max((t - start) / over, 0), 1) : 1
            return from + (to - from) * s
        case .returning(let completion)?:
            return min(max(completion.value(at: t), 0), 1)
        case .closing(_, let progress)?:
            return progress
        case nil:
            return 0
        }
    }

    /// The story pulled down by `progress`: it follows the finger, shrinks to 1 − 0.1·progress
    /// about its centre, and its corners round towards the bubble's radius.
    public func pulledTransform(progress: Double, width: Int, height: Int) -> BubbleTransform {
        let w = Double(width), h = Double(height)
        let p = min(max(progress, 0), 1)
        return BubbleTransform(centre: SIMD2(w / 2, h / 2 + p * h), scale: 1 - 0.1 * p,
                               maskRadius: (w * w + h * h).squareRoot() / 2, cornerRadius: p * bubble.r * w)
    }

    /// The pull's transform at `t`, or nil when no pull moves the story.
    private func pullTransform(at t: Double, width: Int, height: Int) -> BubbleTransform? {
        guard let pull else { return nil }
        if case .closing(let completion, let progress) = pull {
            let pulled = pulledTransform(progress: progress, width: width, height: height)
            var closed = BubbleTransform.opening(from: bubble, progress: 0, width: width, height: height)
            closed.cornerRadius = bubble.r * Double(width)
            let s = min(max(completion.fraction(at: t), 0), 1)
            return BubbleTransform(centre: pulled.centre + (closed.centre - pulled.centre) * s,
                                   scale: pulled.scale + (closed.scale - pulled.scale) * s,
                                   maskRadius: pulled.maskRadius + (closed.maskRadius - pulled.maskRadius) * s,
                                   cornerRadius: pulled.cornerRadius + (closed.cornerRadius - pulled.cornerRadius) * s)
        }
        let progress = pullProgress(at: t)
        guard progress > 0 else { return nil }
        return pulledTransform(progress: progress, width: width, height: height)
    }

    // MARK: - Releases

    /// Pixels per page along the transition's axis, at 720 wide (velocities are given at 720
    /// wide, like every other length in the storyboard).
    private var pixelsPerPage: Double {
        transition.geometry.axis == .horizontal ? 720 : 720 * Double(canvas.height) / Double(canvas.width)
    }

    /// Pixels of the screen height at 720 wide: a pull's progress of 1.
    private var pixelsPerPull: Double { 720 * Double(canvas.height) / Double(canvas.width) }

    /// The release rule: finish when the finger moves forward faster than the flick velocity,
    /// or when it is past `finish_progress` and does not move back faster than that; otherwise
    /// go back. `velocity` is in px/s at 720 wide, positive forward.
    public static func finishes(progress: Double, velocity: Double, settings: GestureSettings) -> Bool {
        let flick = settings.flickVelocity
        if velocity > flick { return true }
        return progress >= settings.finishProgress - 1e-9 && velocity >= -flick
    }

    /// How far a finger moving linearly from `from` by `by` over `over` from `start` is at `t`.
    static func finger(from: Double, by: Double, start: Double, over: Double, at t: Double) -> Double {
        over > 0 ? from + by * min(max((t - start) / over, 0), 1) : (t >= start ? from + by : from)
    }

    /// The finger's velocity over its last `velocityWindow` seconds before `t`.
    static func fingerVelocity(from: Double, by: Double, start: Double, over: Double, at t: Double) -> Double {
        let window = velocityWindow
        return (finger(from: from, by: by, start: start, over: over, at: t)
                - finger(from: from, by: by, start: start, over: over, at: t - window)) / window
    }

    /// The finger's velocity at release is that of its last tenth of a second.
    static let velocityWindow = 0.1

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
        if let dismissedAt, t >= dismissedAt + presentDuration - 1e-9 { isFinished = true }
        if case .closing(let completion, _)? = pull, completion.isDone(at: t) { isFinished = true }
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

    // MARK: - Which stories play

    /// The page geometry in use now: the storyboard's, or a swipe's own style while it runs.
    public var geometry: PageTransition {
        var geometry = transition.geometry
        if case .animating(_, _, _, _, let style) = motion { geometry.style = style }
        return geometry
    }

    /// The stories on screen, as (story, item) pairs.
    public var visibleStories: [(story: Int, item: Int)] {
        geometry.visiblePages(pageOffset: pageOffset).map { ($0, currentItems[$0]) }
    }

    /// The stories whose players should exist now. With `start: settle`, a story revealed by a
    /// moving page waits for the page to land.
    public var playingStories: [(story: Int, item: Int)] {
        let visible = visibleStories
        guard transition.start == .settle, isMoving else { return visible }
        return visible.filter { $0.story == settledPage }
    }

    // MARK: - Gestures

    private mutating func perform(_ gesture: ScriptAction.Gesture, at t: Double) {
        switch gesture {
        case .swipe(let direction, let style):
            if pull != nil {
                notices.append("ignored swipe \(direction.rawValue) at \(t) s: a pull is in progress")
                return
            }
            if case .dragging = motion {
                notices.append("ignored swipe \(direction.rawValue) at \(t) s: a drag is in progress")
                return
            }
            let base: Double
            switch motion {
            case .animating(_, let to, _, _, _)?: base = to
            case .settling(let completion)?: base = completion.to
            default: base = Double(settledPage)
            }
            let target = Int(base) + direction.step
            guard (0..<storyCount).contains(target) else {
                notices.append("ignored swipe \(direction.rawValue) at \(t) s: no \(direction.rawValue) story")
                return
            }
            startAnimation(to: Double(target), at: t, style: style)
        case .drag(let pages, let seconds, let releaseVelocity):
            if pull != nil {
                notices.append("ignored drag at \(t) s: a pull is in progress")
                return
            }
            motion = .dragging(from: pageOffset, by: pages, start: t, over: seconds, releaseVelocity: releaseVelocity)
        case .pull(let progress, let seconds, let releaseVelocity):
            startPull(to: progress, over: seconds, releaseVelocity: releaseVelocity, at: t)
        case .release:
            if case .pulling = pull {
                releasePull(at: t)
            } else if case .dragging = motion {
                releaseDrag(at: t)
            } else {
                notices.append("ignored release at \(t) s: no drag or pull in progress")
            }
        case .tap(let x):
            if pull != nil {
                notices.append("ignored tap at \(t) s: a pull is in progress")
                return
            }
            land()
            let story = settledPage
            if x < 1.0 / 3.0 {
                if currentItems[story] > 0 {
                    currentItems[story] -= 1
                } else if story > 0 {
                    jump(to: story - 1)
                } else {
                    notices.append("ignored tap at \(t) s: already at the first item of the first story")
                }
            } else {
                if currentItems[story] + 1 < itemCounts[story] {
                    currentItems[story] += 1
                } else if story + 1 < storyCount {
                    jump(to: story + 1)
                } else {
                    notices.append("ignored tap at \(t) s: already at the last item of the last story")
                }
            }
        case .hold(let seconds):
            hold = (t, t + seconds)
        case .dismiss:
            if dismissedAt == nil { dismissedAt = t }
        }
    }

    /// A finger pulls the current story down; its media pauses until the story is back.
    private mutating func startPull(to progress: Double, over seconds: Double, releaseVelocity: Double?, at t: Double) {
        if dismissedAt != nil || isFinished {
            notices.append("ignored pull at \(t) s: the viewer is closing")
            return
        }
        if let presentation, t < presentation.duration {
            notices.append("ignored pull at \(t) s: the viewer is still opening")
            return
        }
        switch pull {
        case .closing?:
            notices.append("ignored pull at \(t) s: the viewer is closing")
            return
        case .pulling?, .returning?:
            // The finger goes on from where the story is.
            let from = pullProgress(at: t)
            pull = .pulling(from: from, to: progress, start: t, over: seconds, releaseVelocity: releaseVelocity)
            pullPause = (pullPause?.start ?? t, .infinity)
        case nil:
            // A pull grabs the story where it rests: a page in motion lands first, a drag is dropped.
            land()
            pull = .pulling(from: 0, to: progress, start: t, over: seconds, releaseVelocity: releaseVelocity)
            pullPause = (t, .infinity)
        }
    }

    /// The finger lifts from a pull: the story closes into its bubble or goes back up, from where
    /// it is and at the finger's speed.
    private mutating func releasePull(at t: Double) {
        guard case let .pulling(from, to, start, over, scripted) = pull else { return }
        let progress = pullProgress(at: t)
        let velocity = scripted.map { $0 / pixelsPerPull }
            ?? Self.fingerVelocity(from: from, by: to - from, start: start, over: over, at: t)
        let finish = Self.finishes(progress: progress, velocity: velocity * pixelsPerPull, settings: gestureSettings)
        releases.append(GestureRelease(t: t, story: settledPage, action: .pull, outcome: finish ? .finish : .cancel,
                                       progress: progress, velocity: velocity * pixelsPerPull))
        if finish {
            // The spring runs over the blend into the bubble; the finger's speed is a share of
            // the distance left.
            let remaining = max(1 - progress, 0.05)
            let completion = GestureCompletion(from: 0, to: 1, start: t, velocity: velocity / remaining,
                                               settings: gestureSettings, easeOutDuration: presentDuration)
            pull = .closing(completion, progress: progress)
        } else {
            let completion = GestureCompletion(from: progress, to: 0, start: t, velocity: velocity,
                                               settings: gestureSettings, easeOutDuration: presentDuration * progress)
            pull = .returning(completion)
            pullPause = (pullPause?.start ?? t, t + completion.duration)
            if completion.isDone(at: t) { pull = nil }
        }
    }

    /// The finger lifts from a drag: the turn finishes to the next page or goes back, from where
    /// it is and at the finger's speed.
    private mutating func releaseDrag(at t: Double) {
        guard case let .dragging(from, by, start, over, scripted) = motion else { return }
        let origin = min(max(from.rounded(), 0), Double(storyCount - 1))
        let velocity = scripted.map { $0 / pixelsPerPage }
            ?? Self.fingerVelocity(from: from, by: by, start: start, over: over, at: t)
        let direction: Double = by != 0 ? (by > 0 ? 1 : -1) : (velocity < 0 ? -1 : 1)
        let progress = min(max((pageOffset - origin) * direction, 0), 1)
        let target = origin + direction
        let finish = (0...Double(storyCount - 1)).contains(target)
            && Self.finishes(progress: progress, velocity: velocity * direction * pixelsPerPage, settings: gestureSettings)
        releases.append(GestureRelease(t: t, story: Int(origin), action: .drag, outcome: finish ? .finish : .cancel,
                                       progress: progress, velocity: velocity * pixelsPerPage))
        let end = finish ? target : origin
        if gestureSettings.curve == .easeOut || transition.geometry.style == .cut {
            startAnimation(to: end, at: t)
        } else {
            let completion = GestureCompletion(from: pageOffset, to: end, start: t, velocity: velocity,
                                               settings: gestureSettings, easeOutDuration: 0)
            motion = .settling(completion)
            move(to: t)
        }
    }

    /// An eased move from where the pages are now; its time scales with the distance left.
    private mutating func startAnimation(to target: Double, at t: Double, style: TransitionStyle? = nil) {
        let style = style ?? transition.geometry.style
        let distance = abs(target - pageOffset)
        let seconds = style == .cut ? 0 : transition.duration * distance
        if seconds <= 0 || distance < Self.arrived {
            pageOffset = target
            settledPage = Int(target)
            motion = nil
        } else {
            motion = .animating(from: pageOffset, to: target, start: t, duration: seconds, style: style)
        }
    }

    /// A cut to another story.
    private mutating func jump(to story: Int) {
        pageOffset = Double(story)
        settledPage = story
        motion = nil
    }

    /// Ends any motion at once where it was heading (a tap interrupts a swipe).
    private mutating func land() {
        switch motion {
        case .animating(_, let to, _, _, _):
            jump(to: Int(to))
        case .dragging:
            jump(to: settledPage)
        case .settling(let completion):
            jump(to: Int(completion.to))
        case nil:
            break
        }
    }

    private mutating func move(to t: Double) {
        switch motion {
        case let .animating(from, to, start, duration, _):
            let progress = min(max((t - start) / duration, 0), 1)
            // Within a nanosecond of the end counts as landed: (start + d − start) / d can be 0.999….
            if progress >= 1 - 1e-9 {
                jump(to: Int(to))
            } else {
                pageOffset = from + (to - from) * Self.easeOut(progress)
            }
        case let .dragging(from, by, start, over, _):
            let progress = over > 0 ? min(max((t - start) / over, 0), 1) : 1
            pageOffset = min(max(from + by * progress, 0), Double(storyCount - 1))
        case .settling(let completion):
            if completion.isDone(at: t) {
                jump(to: Int(completion.to))
            } else {
                pageOffset = min(max(completion.value(at: t), 0), Double(storyCount - 1))
            }
        case nil:
            break
        }
        if case .returning(let completion)? = pull, completion.isDone(at: t) { pull = nil }
    }

    /// Cubic ease-out: fast start, gentle landing, as scroll views decelerate.
    static func easeOut(_ x: Double) -> Double {
        1 - (1 - x) * (1 - x) * (1 - x)
    }
}

/// A drag or pull let go: what it was, how far it had gone, how fast the finger moved, and
/// whether the transition finished or went back (the trace's `gesture` event).
public struct GestureRelease: Sendable, Equatable {
    public enum Action: String, Sendable { case drag, pull }
    public enum Outcome: String, Sendable { case finish, cancel }
    /// Timeline seconds of the release.
    public var t: Double
    /// The story the gesture started on.
    public var story: Int
    public var action: Action
    public var outcome: Outcome
    /// How far the transition had gone, 0…1 (of a page, or of the screen height).
    public var progress: Double
    /// The finger's velocity in px/s at 720 wide: towards the next story for a drag, downwards
    /// for a pull.
    public var velocity: Double
}
