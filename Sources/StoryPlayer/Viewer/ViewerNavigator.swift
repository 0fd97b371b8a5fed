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
        case dragging(from: Double, by: Double, start: Double, over: Double)
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
        let bubble = presentation.map { (x: $0.x, y: $0.y, r: $0.r) } ?? (x: 0.5, y: 0.5, r: 0.08)
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

    public var isMoving: Bool { motion != nil }

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
            if case .dragging = motion {
                notices.append("ignored swipe \(direction.rawValue) at \(t) s: a drag is in progress")
                return
            }
            let base: Double
            if case .animating(_, let to, _, _, _) = motion { base = to } else { base = Double(settledPage) }
            let target = Int(base) + direction.step
            guard (0..<storyCount).contains(target) else {
                notices.append("ignored swipe \(direction.rawValue) at \(t) s: no \(direction.rawValue) story")
                return
            }
            startAnimation(to: Double(target), at: t, style: style)
        case .drag(let pages, let seconds):
            motion = .dragging(from: pageOffset, by: pages, start: t, over: seconds)
        case .release:
            guard case .dragging = motion else {
                notices.append("ignored release at \(t) s: no drag in progress")
                return
            }
            // Nearest page: the drag completes if it went at least half a page, else it returns.
            let target = min(max(pageOffset.rounded(), 0), Double(storyCount - 1))
            startAnimation(to: target, at: t)
        case .tap(let x):
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
        case let .dragging(from, by, start, over):
            let progress = over > 0 ? min(max((t - start) / over, 0), 1) : 1
            pageOffset = min(max(from + by * progress, 0), Double(storyCount - 1))
        case nil:
            break
        }
    }

    /// Cubic ease-out: fast start, gentle landing, as scroll views decelerate.
    static func easeOut(_ x: Double) -> Double {
        1 - (1 - x) * (1 - x) * (1 - x)
    }
}
