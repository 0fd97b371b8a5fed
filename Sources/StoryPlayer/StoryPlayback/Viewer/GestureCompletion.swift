import Foundation
import StoryModel

/// The animation that takes a released transition from where the finger left it to its end
/// (finish) or back to its start (cancel): a damped spring that starts at the finger's velocity,
/// or a cubic ease-out over the remaining distance. Both are closed forms of time, so a frame at
/// any moment is the same whichever frames came before it.
public struct GestureCompletion: Sendable, Equatable {
    /// The value where the finger left (pages, or pull progress) and where it comes to rest.
    public let from: Double, to: Double
    /// The timeline moment of the release.
    public let start: Double
    /// The finger's velocity at release, in the value's units per second.
    public let velocity: Double
    public let curve: GestureSettings.Curve
    /// The spring's natural angular frequency (2π / response) and damping ratio.
    let omega: Double, damping: Double
    /// Seconds from release to rest.
    public let duration: Double

    /// Within this distance of the end (in the value's units), and this slow, a spring is at rest.
    static let restDistance = 1e-3
    static let restSpeed = 2e-2
    /// The longest a completion may take: a very soft spring is cut short here.
    static let longest = 10.0

    /// `easeOutDuration` is how long the ease-out takes for this distance (ignored by a spring).
    public init(from: Double, to: Double, start: Double, velocity: Double, settings: GestureSettings,
                easeOutDuration: Double) {
        self.from = from
        self.to = to
        self.start = start
        self.velocity = velocity
        curve = settings.curve
        omega = 2 * Double.pi / settings.springResponse
        damping = settings.springDamping
        if from == to && (curve == .easeOut || abs(velocity) < Self.restSpeed) {
            duration = 0
        } else if curve == .easeOut {
            duration = max(0, easeOutDuration)
        } else {
            duration = Self.restTime(x0: from - to, v0: velocity, omega: omega, damping: damping)
        }
    }

    /// Whether the completion has come to rest by `t`.
    public func isDone(at t: Double) -> Bool {
        // Within a nanosecond of the end counts as done: (start + d − start) / d can be 0.999….
        t - start >= duration - 1e-9
    }

    /// The value at timeline time `t`.
    public func value(at t: Double) -> Double {
        let elapsed = max(0, t - start)
        if isDone(at: t) { return to }
        switch curve {
        case .easeOut:
            return from + (to - from) * ViewerNavigator.easeOut(elapsed / duration)
        case .spring:
            return to + Self.displacement(x0: from - to, v0: velocity, omega: omega, damping: damping, t: elapsed).x
        }
    }

    /// Progress from 0 (where the finger left) to 1 (at rest), for blending between two states;
    /// an under-damped spring may go past 1 and come back.
    public func fraction(at t: Double) -> Double {
        from == to ? (isDone(at: t) ? 1 : 0) : (value(at: t) - from) / (to - from)
    }

    /// The displacement from rest and its velocity `t` seconds after release, for a spring let go
    /// at displacement `x0` with velocity `v0`: under-damped, critically damped or over-damped. A
    /// spring damped critically or more never passes its rest point: where the closed form would
    /// cross it (a hard flick), it stops there.
    static func displacement(x0: Double, v0: Double, omega: Double, damping zeta: Double, t: Double) -> (x: Double, v: Double) {
        var x: Double, v: Double
        if zeta < 1 {
            let wd = omega * (1 - zeta * zeta).squareRoot()
            let decay = exp(-zeta * omega * t)
            let b = (v0 + zeta * omega * x0) / wd
            let c = cos(wd * t), s = sin(wd * t)
            x = decay * (x0 * c + b * s)
            v = decay * ((b * wd - zeta * omega * x0) * c - (x0 * wd + zeta * omega * b) * s)
        } else if zeta == 1 {
            let decay = exp(-omega * t)
            let b = v0 + omega * x0
            x = decay * (x0 + b * t)
            v = decay * (b - omega * (x0 + b * t))
        } else {
            let root = (zeta * zeta - 1).squareRoot()
            let r1 = -omega * (zeta - root), r2 = -omega * (zeta + root)
            let c2 = (v0 - r1 * x0) / (r2 - r1), c1 = x0 - c2
            x = c1 * exp(r1 * t) + c2 * exp(r2 * t)
            v = c1 * r1 * exp(r1 * t) + c2 * r2 * exp(r2 * t)
        }
        if zeta >= 1, x0 != 0, x * x0 <= 0 { return (0, 0) }
        return (x, v)
    }

    /// When the spring comes to rest: the first millisecond from which it stays near its end and
    /// slow (a critically damped spring that reaches its end early stops there).
    static func restTime(x0: Double, v0: Double, omega: Double, damping: Double) -> Double {
        let step = 0.001
        var t = 0.0
        while t < longest {
            t += step
            let (x, v) = displacement(x0: x0, v0: v0, omega: omega, damping: damping, t: t)
            if x == 0 && v == 0 { return t }
            if abs(x) < restDistance && abs(v) < restSpeed {
                // An under-damped spring's envelope, not just this moment, must be within reach.
                if damping >= 1 { return t }
                let envelope = exp(-damping * omega * t) * (abs(x0) + abs(v0 + damping * omega * x0) / (omega * (1 - damping * damping).squareRoot()))
                if envelope < restDistance { return t }
            }
        }
        return longest
    }
}
