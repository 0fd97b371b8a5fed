import Foundation

/// How a layer moves between two keyframes: the share of the way it has gone at each share of
/// the time. The cubic ones are CSS's `cubic-bezier` curves of the same names; `spring` is a
/// damped spring released at the first keyframe, which overshoots and settles by the next.
public enum LayerEasing: String, Sendable, CaseIterable {
    case linear
    case easeIn = "ease-in"
    case easeOut = "ease-out"
    case easeInOut = "ease-in-out"
    case spring

    /// The share of the way gone at `progress` (0…1) of the time; 0 at 0 and 1 at 1.
    public func callAsFunction(_ progress: Double) -> Double {
        let p = min(max(progress, 0), 1)
        switch self {
        case .linear: return p
        case .easeIn: return Self.cubicBezier(p, 0.42, 0, 1, 1)
        case .easeOut: return Self.cubicBezier(p, 0, 0, 0.58, 1)
        case .easeInOut: return Self.cubicBezier(p, 0.42, 0, 0.58, 1)
        case .spring: return p >= 1 ? 1 : Self.spring(p)
        }
    }

    /// The damping ratio and natural frequency (radians per segment) of `spring`: about one
    /// visible overshoot (12 %), within half a percent of rest at the segment's end.
    static let damping = 0.45, frequency = 12.0

    /// A spring's share of the way at `p`: 1 − e^(−ζωp)·(cos ω_d p + ζω/ω_d · sin ω_d p).
    private static func spring(_ p: Double) -> Double {
        let decay = damping * frequency, damped = frequency * (1 - damping * damping).squareRoot()
        return 1 - exp(-decay * p) * (cos(damped * p) + decay / damped * sin(damped * p))
    }

    /// CSS's `cubic-bezier(x1, y1, x2, y2)` at time share `x`: the curve's parameter found by
    /// Newton's method (bisection where its slope is flat), then its `y`.
    private static func cubicBezier(_ x: Double, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Double {
        func coordinate(_ s: Double, _ a: Double, _ b: Double) -> Double {
            let u = 1 - s
            return 3 * u * u * s * a + 3 * u * s * s * b + s * s * s
        }
        func slope(_ s: Double, _ a: Double, _ b: Double) -> Double {
            let u = 1 - s
            return 3 * u * u * a + 6 * u * s * (b - a) + 3 * s * s * (1 - b)
        }
        var s = x
        for _ in 0..<8 {
            let error = coordinate(s, x1, x2) - x
            if abs(error) < 1e-9 { return coordinate(s, y1, y2) }
            let d = slope(s, x1, x2)
            guard abs(d) > 1e-6 else { break }
            s = min(max(s - error / d, 0), 1)
        }
        var low = 0.0, high = 1.0
        s = x
        for _ in 0..<40 {
            let value = coordinate(s, x1, x2)
            if abs(value - x) < 1e-9 { break }
            if value < x { low = s } else { high = s }
            s = (low + high) / 2
        }
        return coordinate(s, y1, y2)
    }
}
