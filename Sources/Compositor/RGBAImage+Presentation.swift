import Foundation

/// The viewer opening from (or closing into) a story bubble: the frame is scaled about a moving
/// centre and seen through a circle that grows into the full rectangle.
public struct BubbleTransform: Sendable, Equatable {
    /// Where the frame's centre lands, in pixels.
    public var centre: SIMD2<Double>
    /// How large the frame is drawn (1 = full screen).
    public var scale: Double
    /// The circular mask's radius in pixels; at the half-diagonal or more it hides nothing.
    public var maskRadius: Double

    public init(centre: SIMD2<Double>, scale: Double, maskRadius: Double) {
        self.centre = centre
        self.scale = scale
        self.maskRadius = maskRadius
    }

    /// Between a bubble at (x, y) with radius r (fractions of the screen width and height; r of
    /// the width) at `progress` 0, and the full screen at 1.
    public static func opening(from bubble: (x: Double, y: Double, r: Double), progress: Double,
                               width: Int, height: Int) -> BubbleTransform {
        let w = Double(width), h = Double(height)
        let s = min(max(progress, 0), 1)
        let start = SIMD2(bubble.x * w, bubble.y * h), end = SIMD2(w / 2, h / 2)
        let radius = bubble.r * w
        let halfDiagonal = (w * w + h * h).squareRoot() / 2
        let startScale = 2 * radius / w
        return BubbleTransform(centre: start + (end - start) * s,
                               scale: startScale + (1 - startScale) * s,
                               maskRadius: radius + (halfDiagonal - radius) * s)
    }
}

extension RGBAImage {
    /// This frame as seen through `transform`, over `background`.
    public func presented(_ transform: BubbleTransform, background: RGBAColor) -> RGBAImage {
        var out = RGBAImage(width: width, height: height, fill: background)
        guard width >= 2, height >= 2, transform.scale > 0 else { return out }
        let sampler = BilinearSampler(texture: self)
        let w = Double(width), h = Double(height)
        let bg = SIMD4<Float>(Float(background.red), Float(background.green), Float(background.blue), 0)
        pixels.withUnsafeBufferPointer { source in
            let base = UnsafeRawPointer(source.baseAddress!)
            out.pixels.withUnsafeMutableBytes { target in
                for y in 0..<height {
                    for x in 0..<width {
                        let px = Double(x) + 0.5 - transform.centre.x, py = Double(y) + 0.5 - transform.centre.y
                        let coverage = min(max(0.5 - ((px * px + py * py).squareRoot() - transform.maskRadius), 0), 1)
                        guard coverage > 0 else { continue }
                        let u = (px / transform.scale + w / 2) / w, v = (py / transform.scale + h / 2) / h
                        guard u >= 0, u <= 1, v >= 0, v <= 1 else { continue }
                        let value = sampler.sample(base, u: Float(u), v: Float(v))
                        let mixed = bg + (value - bg) * Float(coverage)
                        target.storeBytes(of: BilinearSampler.pack(mixed), toByteOffset: (y * width + x) * 4, as: UInt32.self)
                    }
                }
            }
        }
        return out
    }
}
