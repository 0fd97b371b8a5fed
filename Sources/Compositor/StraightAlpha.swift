// Compositing onto pictures that may be transparent. Pictures keep straight (not premultiplied)
// alpha, as PNG files do; blending is done on premultiplied values, where "over" is a sum, and
// divided back. Story pictures are opaque, so only a frame whose background is not opaque
// (`"background": "transparent"`) has anything to blend this way; opaque pixels keep the
// simpler blends they always had, byte for byte.

/// Porter-Duff "over" in straight alpha.
enum StraightAlpha {
    /// `source` (premultiplied: colour × alpha, 0…255, alpha 0…255 in the last lane, already
    /// scaled by coverage) over the straight RGBA pixel `under`:
    /// out.a = a_s + a_d(1 − a_s), out.rgb = (rgb_s·a_s + rgb_d·a_d(1 − a_s)) / out.a.
    /// Where both are fully transparent, `under` stays as it is.
    @inline(__always)
    static func over(_ source: SIMD4<Float>, under: UInt32) -> UInt32 {
        let sourceAlpha = source.w / 255
        let underAlpha = Float(under >> 24) / 255
        let keep = underAlpha * (1 - sourceAlpha)
        let alpha = sourceAlpha + keep
        guard alpha > 0 else { return under }
        let below = SIMD4<Float>(Float(under & 0xFF), Float(under >> 8 & 0xFF), Float(under >> 16 & 0xFF), 0)
        var straight = (source + below * keep) / alpha
        straight.w = alpha * 255
        return BilinearSampler.packStraight(straight)
    }
}

extension StraightAlpha {
    /// `source` (premultiplied, as `over` takes it) added to the straight RGBA pixel `under`
    /// (Porter-Duff "plus", alpha capped at 1): for shares of one pixel that never overlap,
    /// such as two faces' coverages along their shared edge.
    @inline(__always)
    static func plus(_ source: SIMD4<Float>, under: UInt32) -> UInt32 {
        let underAlpha = Float(under >> 24)
        let share = underAlpha / 255
        let below = SIMD4<Float>(Float(under & 0xFF) * share, Float(under >> 8 & 0xFF) * share, Float(under >> 16 & 0xFF) * share,
                                 underAlpha)
        let sum = below + source
        let alpha = min(sum.w, 255)
        guard alpha > 0 else { return under }
        var straight = sum * (255 / alpha)
        straight.w = alpha
        return BilinearSampler.packStraight(straight)
    }
}

extension BilinearSampler {
    /// Rounds all four channels to bytes (alpha from the last lane).
    @inline(__always)
    static func packStraight(_ value: SIMD4<Float>) -> UInt32 {
        @inline(__always) func byte(_ x: Float) -> UInt32 { UInt32(min(max(x + 0.5, 0), 255)) }
        return byte(value.x) | byte(value.y) << 8 | byte(value.z) << 16 | byte(value.w) << 24
    }

    /// The premultiplied colour and alpha (0…255 each) at texture coordinates (u, v) in [0, 1]²:
    /// each texel's colour weighted by its alpha before the bilinear blend, so a transparent
    /// texel's colour never bleeds into its neighbours. Clamped as `sample(_:u:v:)` is.
    @inline(__always)
    func samplePremultiplied(_ base: UnsafeRawPointer, u: Float, v: Float) -> SIMD4<Float> {
        let (x0, y0, fx, fy) = footprint(u: u, v: v)
        @inline(__always) func texel(_ x: Int, _ y: Int) -> SIMD4<Float> {
            let word = base.loadUnaligned(fromByteOffset: (y * width + x) * 4, as: UInt32.self)
            let alpha = Float(word >> 24)
            let colour = SIMD4<Float>(Float(word & 0xFF), Float(word >> 8 & 0xFF), Float(word >> 16 & 0xFF), 255)
            return colour * (alpha / 255)
        }
        let upper = texel(x0, y0) + (texel(x0 + 1, y0) - texel(x0, y0)) * fx
        let lower = texel(x0, y0 + 1) + (texel(x0 + 1, y0 + 1) - texel(x0, y0 + 1)) * fx
        return upper + (lower - upper) * fy
    }
}

extension RGBAImage {
    /// Whether every pixel has alpha 255 (`isOpaque(columns:rows:)` over the whole picture).
    public var isOpaque: Bool {
        width == 0 || height == 0 || isOpaque(columns: 0...(width - 1), rows: 0...(height - 1))
    }
}
