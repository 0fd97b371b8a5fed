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
    /// The radius of the drawn frame's rounded corners, in pixels (0: square corners).
    public var cornerRadius: Double = 0

    public init(centre: SIMD2<Double>, scale: Double, maskRadius: Double, cornerRadius: Double = 0) {
        self.centre = centre
        self.scale = scale
        self.maskRadius = maskRadius
        self.cornerRadius = cornerRadius
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
    /// This frame as seen through `transform`, over `background`. The frame is taken as opaque
    /// when the background is (story pictures are; only a background that is not leaves
    /// transparent pixels in a frame).
    public func presented(_ transform: BubbleTransform, background: RGBAColor) -> RGBAImage {
        if transform.cornerRadius > 0 || !background.isOpaque {
            return presented(transform, over: RGBAImage(width: width, height: height, fill: background))
        }
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

extension RGBAImage {
    /// This frame as seen through `transform`, over `backdrop` (a picture of the same size): the
    /// frame's edges, its rounded corners and the circular mask blend into the backdrop. When
    /// either picture has transparent pixels, the frame goes over the backdrop in straight alpha.
    public func presented(_ transform: BubbleTransform, over backdrop: RGBAImage) -> RGBAImage {
        precondition(backdrop.width == width && backdrop.height == height, "a backdrop of another size")
        var out = backdrop
        guard width >= 2, height >= 2, transform.scale > 0 else { return out }
        let straight = !(isOpaque && backdrop.isOpaque)
        let sampler = BilinearSampler(texture: self)
        let w = Double(width), h = Double(height)
        let halfW = w * transform.scale / 2, halfH = h * transform.scale / 2
        let corner = min(max(transform.cornerRadius, 0), min(halfW, halfH))
        // Only the rows and columns the frame covers are visited.
        let y0 = max(0, Int((transform.centre.y - halfH).rounded(.down)) - 1)
        let y1 = min(height, Int((transform.centre.y + halfH).rounded(.up)) + 1)
        let x0 = max(0, Int((transform.centre.x - halfW).rounded(.down)) - 1)
        let x1 = min(width, Int((transform.centre.x + halfW).rounded(.up)) + 1)
        guard y0 < y1, x0 < x1 else { return out }
        pixels.withUnsafeBufferPointer { source in
            let base = UnsafeRawPointer(source.baseAddress!)
            out.pixels.withUnsafeMutableBytes { target in
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        let px = Double(x) + 0.5 - transform.centre.x, py = Double(y) + 0.5 - transform.centre.y
                        let circle = 0.5 - ((px * px + py * py).squareRoot() - transform.maskRadius)
                        // The rounded rectangle's signed distance, half a pixel of antialiasing.
                        let qx = abs(px) - (halfW - corner), qy = abs(py) - (halfH - corner)
                        let outside = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot()
                        let distance = outside + min(max(qx, qy), 0) - corner
                        let coverage = min(max(min(circle, 0.5 - distance), 0), 1)
                        guard coverage > 0 else { continue }
                        let u = min(max((px / transform.scale + w / 2) / w, 0), 1)
                        let v = min(max((py / transform.scale + h / 2) / h, 0), 1)
                        let offset = (y * width + x) * 4
                        if straight {
                            let source = sampler.samplePremultiplied(base, u: Float(u), v: Float(v)) * Float(coverage)
                            let under = target.load(fromByteOffset: offset, as: UInt32.self)
                            target.storeBytes(of: StraightAlpha.over(source, under: under), toByteOffset: offset, as: UInt32.self)
                            continue
                        }
                        let value = sampler.sample(base, u: Float(u), v: Float(v))
                        let under = SIMD4<Float>(Float(target[offset]), Float(target[offset + 1]), Float(target[offset + 2]), 0)
                        var mixed = under + (value - under) * Float(coverage)
                        mixed[3] = 255
                        target.storeBytes(of: BilinearSampler.pack(mixed), toByteOffset: offset, as: UInt32.self)
                    }
                }
            }
        }
        return out
    }
}
