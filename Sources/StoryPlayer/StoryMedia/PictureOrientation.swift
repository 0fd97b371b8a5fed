import Foundation

/// How a stored picture is put upright: flipped left to right or not, then turned clockwise by
/// quarter turns. It is what EXIF's Orientation tag says (1-8), and what a video's display
/// matrix says; phones store a portrait photo as a landscape one tagged 6 (turn once).
public struct PictureOrientation: Sendable, Equatable {
    /// Flipped left to right before the turn (EXIF 2, 4, 5, 7).
    public let mirrored: Bool
    /// Clockwise quarter turns after the flip, 0-3.
    public let quarterTurns: Int

    public init(mirrored: Bool = false, quarterTurns: Int) {
        self.mirrored = mirrored
        self.quarterTurns = (quarterTurns % 4 + 4) % 4
    }

    /// Stored as shown.
    public static let upright = PictureOrientation(quarterTurns: 0)

    // MARK: - EXIF

    /// The orientation EXIF value `exif` means; nil outside 1-8.
    public init?(exif: Int) {
        // EXIF numbers them by where the stored first row and column go, not by turns; these are
        // the same eight as flip-then-turn (5 is the transpose, 7 the transverse).
        switch exif {
        case 1: self.init(quarterTurns: 0)
        case 2: self.init(mirrored: true, quarterTurns: 0)
        case 3: self.init(quarterTurns: 2)
        case 4: self.init(mirrored: true, quarterTurns: 2)
        case 5: self.init(mirrored: true, quarterTurns: 3)
        case 6: self.init(quarterTurns: 1)
        case 7: self.init(mirrored: true, quarterTurns: 1)
        case 8: self.init(quarterTurns: 3)
        default: return nil
        }
    }

    /// The EXIF value (1-8) of this orientation, for `probe`.
    public var exif: Int {
        switch (mirrored, quarterTurns) {
        case (false, 0): 1
        case (true, 0): 2
        case (false, 2): 3
        case (true, 2): 4
        case (true, 3): 5
        case (false, 1): 6
        case (true, 1): 7
        default: 8
        }
    }

    /// Whether the shown picture's width is the stored height.
    public var swapsSides: Bool { quarterTurns % 2 == 1 }

    // MARK: - Display matrix

    /// The orientation a display matrix (FFmpeg's 3×3 of 16.16 fixed point, row by row) asks
    /// for, rounded to quarter turns; nil for a degenerate matrix.
    ///
    /// FFmpeg's `av_display_rotation_get` reads only the rotation, so it takes a mirrored
    /// matrix (a negative determinant: how the MJPEG decoder exports EXIF 2, 4, 5 and 7) for a
    /// turn the wrong way. A mirrored matrix is unflipped first (its first row negated), then
    /// read as that function reads it.
    public init?(displayMatrix m: [Int32]) {
        guard m.count >= 5 else { return nil }
        var a = Double(m[0]), b = Double(m[1])
        let c = Double(m[3]), d = Double(m[4])
        let mirrored = a * d - b * c < 0
        if mirrored { (a, b) = (-a, -b) }
        let columnScale = hypot(a, c), rowScale = hypot(b, d)
        guard columnScale > 0, rowScale > 0 else { return nil }
        // `av_display_rotation_get` is minus this: the matrix turns the stored picture
        // counter-clockwise by that much, so showing it upright turns it clockwise by this.
        let degrees = atan2(b / rowScale, a / columnScale) * 180 / .pi
        guard degrees.isFinite else { return nil }
        let clockwise = Int(degrees.rounded())
        self.init(mirrored: mirrored, quarterTurns: ((clockwise % 360 + 360) % 360 + 45) / 90 % 4)
    }
}
