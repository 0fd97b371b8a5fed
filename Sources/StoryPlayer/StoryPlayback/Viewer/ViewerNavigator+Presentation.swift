import Compositor
import Foundation
import StoryModel

extension ViewerNavigator {
    // MARK: - Hold, overlay, presentation

    /// The overlay's opacity: it fades out while a finger holds the story, as in Instagram.
    public func overlayOpacity(at t: Double) -> Double {
        guard let hold, t >= hold.start else { return 1 }
        if t < hold.end { return max(0, 1 - (t - hold.start) / Self.overlayFade) }
        return min(1, (t - hold.end) / Self.overlayFade)
    }

    /// How long the bubble takes to open or close.
    var presentDuration: Double { presentation?.duration ?? Presentation.defaultDuration }

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
    var bubble: (x: Double, y: Double, r: Double) {
        Presentation.bubble(of: presentation)
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
        Self.pulledTransform(progress: progress, width: width, height: height, bubbleRadius: bubble.r)
    }

    /// A story pulled down to `progress` (0…1) of the screen, its corners rounding towards
    /// those of a bubble of `bubbleRadius` (a fraction of the width): what a pull shows, and
    /// `still --pull`.
    public static func pulledTransform(progress: Double, width: Int, height: Int, bubbleRadius: Double) -> BubbleTransform {
        let w = Double(width), h = Double(height)
        let p = min(max(progress, 0), 1)
        return BubbleTransform(centre: SIMD2(w / 2, h / 2 + p * h), scale: 1 - 0.1 * p,
                               maskRadius: (w * w + h * h).squareRoot() / 2, cornerRadius: p * bubbleRadius * w)
    }

    /// The pull's transform at `t`, or nil when no pull moves the story.
    func pullTransform(at t: Double, width: Int, height: Int) -> BubbleTransform? {
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
}
