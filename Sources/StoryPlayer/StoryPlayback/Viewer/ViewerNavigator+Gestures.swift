import Compositor
import Foundation
import StoryModel
import StoryTrace

extension ViewerNavigator {
    // MARK: - Releases

    /// Pixels per page along the transition's axis, at 720 wide (velocities are given at 720
    /// wide, like every other length in the storyboard).
    var pixelsPerPage: Double {
        transition.geometry.axis == .horizontal ? 720 : 720 * Double(canvas.height) / Double(canvas.width)
    }

    /// Pixels of the screen height at 720 wide: a pull's progress of 1.
    var pixelsPerPull: Double { 720 * Double(canvas.height) / Double(canvas.width) }

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

    // MARK: - Gestures

    mutating func perform(_ gesture: ScriptAction.Gesture, at t: Double) {
        if isClosed {
            notices.append("ignored \(gesture.name) at \(t) s: the viewer has closed")
            return
        }
        switch gesture {
        case .swipe(let direction, let transition):
            swipe(direction, transition: transition, at: t)
        case .drag(let pages, let seconds, let releaseVelocity, let transition):
            if pull != nil {
                notices.append("ignored drag at \(t) s: a pull is in progress")
                return
            }
            motion = .dragging(from: pageOffset, by: pages, start: t, over: seconds, releaseVelocity: releaseVelocity)
            gestureTransition = transition
        case .pull(let progress, let seconds, let releaseVelocity):
            startPull(to: progress, over: seconds, releaseVelocity: releaseVelocity, at: t)
        case .release:
            release(at: t)
        case .tap(let x):
            tap(at: x, t: t)
        case .hold(let seconds):
            hold = (t, t + seconds)
        case .dismiss:
            if dismissedAt == nil { dismissedAt = t }
        }
    }

    /// A swipe turns to the next or previous story from where the page is headed.
    private mutating func swipe(_ direction: ScriptAction.Direction, transition: GestureTransition?, at t: Double) {
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
        case .animating(_, let to, _, _)?: base = to
        case .settling(let completion)?: base = completion.to
        default: base = Double(settledPage)
        }
        let target = Int(base) + direction.step
        guard (0..<storyCount).contains(target) else {
            notices.append("ignored swipe \(direction.rawValue) at \(t) s: no \(direction.rawValue) story")
            return
        }
        gestureTransition = transition
        startAnimation(to: Double(target), at: t)
    }

    /// The finger lifts from a pull or a drag.
    private mutating func release(at t: Double) {
        if case .pulling = pull {
            releasePull(at: t)
        } else if case .dragging = motion {
            releaseDrag(at: t)
        } else {
            notices.append("ignored release at \(t) s: no drag or pull in progress")
        }
    }

    /// A tap on the left third goes back an item, elsewhere forward; past a story's first or
    /// last item it jumps to the story before or after.
    private mutating func tap(at x: Double, t: Double) {
        if pull != nil {
            notices.append("ignored tap at \(t) s: a pull is in progress")
            return
        }
        // The finger is down on a drag, as for a swipe: a tap would drop the drag without a
        // word, and its release would then find nothing to release.
        if case .dragging = motion {
            notices.append("ignored tap at \(t) s: a drag is in progress")
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
    }

    /// A finger pulls the current story down; its media pauses until the story is back.
    mutating func startPull(to progress: Double, over seconds: Double, releaseVelocity: Double?, at t: Double) {
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
            if case .dragging = motion {
                notices.append("ignored pull at \(t) s: a drag is in progress")
                return
            }
            // A pull grabs the story where it rests: a page in motion lands first.
            land()
            pull = .pulling(from: 0, to: progress, start: t, over: seconds, releaseVelocity: releaseVelocity)
            pullPause = (t, .infinity)
        }
    }

    /// The finger lifts from a pull: the story closes into its bubble or goes back up, from where
    /// it is and at the finger's speed.
    mutating func releasePull(at t: Double) {
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
    mutating func releaseDrag(at t: Double) {
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
        if gestureSettings.curve == .easeOut || geometry.style == .cut {
            startAnimation(to: end, at: t)
        } else {
            let completion = GestureCompletion(from: pageOffset, to: end, start: t, velocity: velocity,
                                               settings: gestureSettings, easeOutDuration: 0)
            motion = .settling(completion)
            move(to: t)
        }
    }

    /// An eased move from where the pages are now, in the turn of the gesture that started it
    /// (`gestureTransition`) or the storyboard's; its time scales with the distance left.
    mutating func startAnimation(to target: Double, at t: Double) {
        let style = (gestureTransition?.style) ?? transition.geometry.style
        let distance = abs(target - pageOffset)
        let seconds = style == .cut ? 0 : transition.duration * distance
        if seconds <= 0 || distance < Self.arrived {
            pageOffset = target
            settledPage = Int(target)
            motion = nil
            gestureTransition = nil
        } else {
            motion = .animating(from: pageOffset, to: target, start: t, duration: seconds)
        }
    }

    /// A cut to another story.
    mutating func jump(to story: Int) {
        pageOffset = Double(story)
        settledPage = story
        motion = nil
        gestureTransition = nil
    }

    /// Ends any motion at once where it was heading (a tap interrupts a swipe).
    mutating func land() {
        switch motion {
        case .animating(_, let to, _, _):
            jump(to: Int(to))
        case .dragging:
            jump(to: settledPage)
        case .settling(let completion):
            jump(to: Int(completion.to))
        case nil:
            break
        }
    }

    mutating func move(to t: Double) {
        switch motion {
        case let .animating(from, to, start, duration):
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
