// Faces over a background that is not opaque (`"background": "transparent"`, `"#RRGGBBAA"`).
//
// Frames keep straight (not premultiplied) alpha, as PNG files do. Faces are opaque, so the
// inside of a face is its colour with alpha 255 whatever the background, and only the pixels
// along a face's edges depend on it. There the opaque rule, `canvas += coverage × (colour −
// background)`, holds for premultiplied colour and for alpha, which add where colours in straight
// alpha do not: an opaque face adds `coverage × (1 − background alpha)` of alpha. For a single
// edge that is the Porter-Duff "over" of the face's covered share on the background (out.a =
// a_s + a_d(1 − a_s), out.rgb = (rgb_s·a_s + rgb_d·a_d(1 − a_s)) / out.a); where two faces meet
// their coverages still sum to one, so the seam is opaque, as over an opaque background.
// A background with alpha 255 never comes here: those frames are drawn as they always were.

/// The canvas background in the form the edge rule wants, or nil when it is opaque.
struct TransparentBackground: Sendable {
    /// Colour × alpha, 0…255 per channel (the last lane 0).
    let premultiplied: SIMD4<Float>
    /// 0…1.
    let alpha: Float

    init?(_ color: RGBAColor) {
        guard !color.isOpaque else { return nil }
        alpha = Float(color.alpha) / 255
        premultiplied = SIMD4(Float(color.red), Float(color.green), Float(color.blue), 0) * alpha
    }
}

extension PreparedFace {
    /// Adds `coverage` of an opaque face's `colour` (shaded, 0…255, last lane 0) to the canvas
    /// pixel at `pixel`, which holds straight RGBA: the background and any other face's share.
    /// `coverage` must be above 0.
    @inline(__always)
    static func addEdge(_ colour: SIMD4<Float>, coverage: Float, over background: TransparentBackground,
                        at pixel: UnsafeMutableRawPointer) {
        let word = pixel.load(as: UInt32.self)
        let alphaBefore = Float(word >> 24) / 255
        let before = SIMD4<Float>(Float(word & 0xFF), Float(word >> 8 & 0xFF), Float(word >> 16 & 0xFF), 0) * alphaBefore
        // Above 0: coverage > 0 and the background's alpha < 1.
        let alpha = min(alphaBefore + coverage * (1 - background.alpha), 1)
        var straight = (before + (colour - background.premultiplied) * coverage) / alpha
        straight.w = alpha * 255
        pixel.storeBytes(of: BilinearSampler.packStraight(straight), as: UInt32.self)
    }
}
