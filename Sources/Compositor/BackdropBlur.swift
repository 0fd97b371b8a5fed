import Foundation

/// The app screen behind the story viewer, blurred and dimmed as much as the viewer is open (the
/// Snapchat container's blur effect whose alpha follows the transition's percent complete).
///
/// Blurs are made at reduced resolution (a quarter of a 720-wide canvas), where a three-pass
/// box blur of radius r costs the same for any r, and kept by whole radius: a fractional radius
/// is a crossfade of the two whole radii around it, so the blur grows smoothly with openness and
/// a static backdrop is blurred at most once per radius.
public final class BackdropBlur {
    /// The backdrop at canvas size, unblurred.
    public let plain: RGBAImage
    /// The blur radius, in canvas pixels, when the viewer is fully open.
    public let fullRadius: Double
    /// How much darker the backdrop is when the viewer is fully open, 0…1.
    public let dim: Double
    /// Canvas pixels per pixel of the reduced picture.
    public let factor: Int
    private let small: RGBAImage
    /// A single colour blurs to itself: nothing to blur.
    private let isSolid: Bool
    /// Blurred pictures at canvas size by radius (in reduced pixels); a few are kept.
    private var levels: [Int: RGBAImage] = [:]
    private var recent: [Int] = []
    static let kept = 4

    public init(plain: RGBAImage, fullRadius: Double, dim: Double) {
        self.plain = plain
        self.fullRadius = max(0, fullRadius)
        self.dim = min(max(dim, 0), 1)
        factor = max(1, min(4, plain.width / 180))
        small = plain.boxReduced(by: factor)
        isSolid = plain.pixels.withUnsafeBytes { raw in
            let words = raw.bindMemory(to: UInt32.self)
            return words.allSatisfy { $0 == words[0] }
        }
    }

    /// The backdrop when the viewer is `openness` open (0 closed: the plain picture; 1 fully open:
    /// blurred by `fullRadius` and darkened by `dim`; linear between).
    public func picture(openness: Double) -> RGBAImage {
        let o = min(max(openness, 0), 1)
        guard o > 0 else { return plain }
        let radius = fullRadius * o / Double(factor)
        let brightness = 1 - dim * o
        guard !isSolid, radius > 0 else {
            var out = plain
            if dim > 0 { out.darken(by: brightness) }
            return out
        }
        let lower = Int(radius.rounded(.down)), share = radius - Double(lower)
        return Self.mix(level(lower), level(lower + 1), share: share, brightness: brightness)
    }

    /// `a` crossfaded towards `b` by `share` and darkened to `brightness`, in one pass.
    static func mix(_ a: RGBAImage, _ b: RGBAImage, share: Double, brightness: Double) -> RGBAImage {
        let weightB = UInt32((min(max(share, 0), 1) * min(max(brightness, 0), 1) * 65_536).rounded())
        let weightA = UInt32((min(max(brightness, 0), 1) * 65_536).rounded()) - weightB
        var out = [UInt8](repeating: 255, count: a.pixels.count)
        a.pixels.withUnsafeBufferPointer { first in
            b.pixels.withUnsafeBufferPointer { second in
                out.withUnsafeMutableBufferPointer { target in
                    var i = 0
                    let count = target.count
                    while i < count {
                        target[i] = UInt8((UInt32(first[i]) * weightA + UInt32(second[i]) * weightB + 32_768) >> 16)
                        target[i + 1] = UInt8((UInt32(first[i + 1]) * weightA + UInt32(second[i + 1]) * weightB + 32_768) >> 16)
                        target[i + 2] = UInt8((UInt32(first[i + 2]) * weightA + UInt32(second[i + 2]) * weightB + 32_768) >> 16)
                        i += 4
                    }
                }
            }
        }
        return RGBAImage(width: a.width, height: a.height, pixels: out)
    }

    /// The backdrop blurred by `radius` reduced pixels, at canvas size.
    private func level(_ radius: Int) -> RGBAImage {
        if radius <= 0 { return plain }
        if let kept = levels[radius] {
            recent.removeAll { $0 == radius }
            recent.append(radius)
            return kept
        }
        let blurred = small.blurred(radius: radius).scaled(width: plain.width, height: plain.height)
        levels[radius] = blurred
        recent.append(radius)
        if recent.count > Self.kept { levels[recent.removeFirst()] = nil }
        return blurred
    }
}

extension RGBAImage {
    /// The variance of the pixels' brightness (mean of R, G, B) in a rectangle: a measure of
    /// local contrast, which a blur lowers.
    public func brightnessVariance(x: Int, y: Int, width w: Int, height h: Int) -> Double {
        var sum = 0.0, squares = 0.0, count = 0.0
        for row in max(0, y)..<min(height, y + h) {
            for column in max(0, x)..<min(width, x + w) {
                let i = (row * width + column) * 4
                let value = (Double(pixels[i]) + Double(pixels[i + 1]) + Double(pixels[i + 2])) / 3
                sum += value
                squares += value * value
                count += 1
            }
        }
        guard count > 0 else { return 0 }
        let mean = sum / count
        return squares / count - mean * mean
    }
}
