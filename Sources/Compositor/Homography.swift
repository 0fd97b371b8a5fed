/// A plane-to-plane projective map, as a 3×3 matrix acting on homogeneous column vectors.
///
/// A cube face is a flat rectangle seen in perspective, so the map from its texture square
/// to the screen is a homography. Rendering uses the inverse, screen → texture, which is
/// exactly perspective-correct: it is what interpolating u/w, v/w and 1/w computes.
public struct Homography: Sendable, Equatable {
    /// Row-major entries m[row * 3 + column].
    public var m: [Double]

    public init(_ entries: [Double]) {
        precondition(entries.count == 9, "a homography has nine entries")
        m = entries
    }

    /// The composition `self ∘ other`: apply `other`, then `self`.
    public static func * (lhs: Homography, rhs: Homography) -> Homography {
        var r = [Double](repeating: 0, count: 9)
        for i in 0..<3 {
            for j in 0..<3 {
                r[i * 3 + j] = lhs.m[i * 3] * rhs.m[j] + lhs.m[i * 3 + 1] * rhs.m[3 + j] + lhs.m[i * 3 + 2] * rhs.m[6 + j]
            }
        }
        return Homography(r)
    }

    /// Maps a point; nil where the point goes to infinity.
    public func apply(_ x: Double, _ y: Double) -> SIMD2<Double>? {
        let w = m[6] * x + m[7] * y + m[8]
        guard abs(w) > 1e-12 else { return nil }
        return SIMD2((m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w)
    }

    public var determinant: Double {
        m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
    }

    /// The inverse map, or nil when the map collapses the plane (a face seen edge-on).
    public var inverse: Homography? {
        let det = determinant
        guard abs(det) > 1e-12 else { return nil }
        let a = m
        let adj: [Double] = [
            a[4] * a[8] - a[5] * a[7], a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
            a[5] * a[6] - a[3] * a[8], a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
            a[3] * a[7] - a[4] * a[6], a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3],
        ]
        return Homography(adj.map { $0 / det })
    }

    /// Exchanges x and y on both sides: the same map for the transposed picture.
    public var transposed: Homography {
        let swap = Homography([0, 1, 0, 1, 0, 0, 0, 0, 1])
        return swap * self * swap
    }
}
