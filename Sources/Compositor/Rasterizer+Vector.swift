// The rasterizer's fast inner loop. For each row it finds the span the face touches and, inside
// it, the span where every edge is at least half a pixel away (coverage exactly 1). Inside, eight
// pixels at a time get u/w, v/w and 1/w as SIMD8 lanes and write texel × brightness with no edge
// maths; only the few pixels along the edges take the general anti-aliased path.

extension PreparedFace {
    func drawVector(rows: Range<Int>, into canvas: CanvasPointer, background: RGBAColor) {
        let visibleRows = rows.clamped(to: rowRange)
        guard !visibleRows.isEmpty, texture.width >= 2, texture.height >= 2 else {
            draw(rows: rows, into: canvas, background: background)
            return
        }
        let sampler = BilinearSampler(texture: texture)
        let m = inverse
        let m0 = m[0], m3 = m[3], m6 = m[6]
        let background4 = SIMD4<Float>(Float(background.red), Float(background.green), Float(background.blue), 0)
        let shade = brightness
        let lanes = SIMD8<Float>(0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5)
        texture.pixels.withUnsafeBufferPointer { pixels in
            let base = UnsafeRawPointer(pixels.baseAddress!)
            for y in visibleRows {
                let outer = span(row: y, width: canvas.width)
                guard !outer.isEmpty else { continue }
                let inner = span(row: y, width: canvas.width, distance: 0.5).clamped(to: outer)
                let py = Float(y) + 0.5
                let rowU = m[1] * py + m[2], rowV = m[4] * py + m[5], rowW = m[7] * py + m[8]
                let rest = edgeB * py + edgeC
                let out = UnsafeMutableRawPointer(canvas.base + y * canvas.width * 4)

                @inline(__always) func edgePixel(_ x: Int) {
                    let px = Float(x) + 0.5
                    let distance = edgeA * px + rest + 0.5
                    let coverage = min(max(min(min(distance.x, distance.y), min(distance.z, distance.w)), 0), 1)
                    guard coverage > 0 else { return }
                    let w = m6 * px + rowW
                    let texel = sampler.sample(base, u: (m0 * px + rowU) / w, v: (m3 * px + rowV) / w)
                    let slot = out + x * 4
                    let word = slot.load(as: UInt32.self)
                    let current = SIMD4<Float>(Float(word & 0xFF), Float(word >> 8 & 0xFF), Float(word >> 16 & 0xFF), 0)
                    let value = current + texel * (coverage * shade) - background4 * coverage
                    slot.storeBytes(of: BilinearSampler.pack(value), as: UInt32.self)
                }

                let edgeEnd = inner.isEmpty ? outer.upperBound : inner.lowerBound
                for x in outer.lowerBound..<edgeEnd { edgePixel(x) }
                if !inner.isEmpty {
                    var x = inner.lowerBound
                    while x + 8 <= inner.upperBound {
                        let px = lanes + Float(x)
                        let w = m6 * px + rowW
                        let u = (m0 * px + rowU) / w
                        let v = (m3 * px + rowV) / w
                        for lane in 0..<8 {
                            let texel = sampler.sample(base, u: u[lane], v: v[lane]) * shade
                            (out + (x + lane) * 4).storeBytes(of: BilinearSampler.pack(texel), as: UInt32.self)
                        }
                        x += 8
                    }
                    while x < inner.upperBound {
                        let px = Float(x) + 0.5
                        let w = m6 * px + rowW
                        let texel = sampler.sample(base, u: (m0 * px + rowU) / w, v: (m3 * px + rowV) / w) * shade
                        (out + x * 4).storeBytes(of: BilinearSampler.pack(texel), as: UInt32.self)
                        x += 1
                    }
                    for x in inner.upperBound..<outer.upperBound { edgePixel(x) }
                }
            }
        }
    }
}

/// Bilinear sampling with texel centres at half-integers and clamping at the edges, reading each
/// texture row's two neighbouring texels with one 8-byte load.
struct BilinearSampler {
    let width: Int
    let height: Int
    let widthF: Float, heightF: Float
    let maxX: Float, maxY: Float

    init(texture: RGBAImage) {
        width = texture.width
        height = texture.height
        widthF = Float(width)
        heightF = Float(height)
        maxX = Float(width - 1)
        maxY = Float(height - 1)
    }

    /// The colour at texture coordinates (u, v) in [0, 1]², as four floats (alpha not used).
    @inline(__always)
    func sample(_ base: UnsafeRawPointer, u: Float, v: Float) -> SIMD4<Float> {
        let sx = min(max(u * widthF - 0.5, 0), maxX)
        let sy = min(max(v * heightF - 0.5, 0), maxY)
        var x0 = Int(sx), y0 = Int(sy)
        var fx = sx - Float(x0), fy = sy - Float(y0)
        // On the last column (row) read the pair before it with weight 1 on the second texel:
        // the same value, without reading past the row.
        if x0 >= width - 1 { x0 = width - 2; fx = 1 }
        if y0 >= height - 1 { y0 = height - 2; fy = 1 }
        // One 8-byte load per texture row: the texel and its right neighbour, R G B A R G B A.
        let top = base.loadUnaligned(fromByteOffset: (y0 * width + x0) * 4, as: UInt64.self)
        let bottom = base.loadUnaligned(fromByteOffset: ((y0 + 1) * width + x0) * 4, as: UInt64.self)
        @inline(__always) func channel(_ shift: UInt64) -> Float {
            let a = Float(top >> shift & 0xFF), b = Float(top >> (shift + 32) & 0xFF)
            let c = Float(bottom >> shift & 0xFF), d = Float(bottom >> (shift + 32) & 0xFF)
            let upper = a + (b - a) * fx
            let lower = c + (d - c) * fx
            return upper + (lower - upper) * fy
        }
        return SIMD4(channel(0), channel(8), channel(16), 0)
    }

    /// Rounds to bytes, with alpha opaque.
    @inline(__always)
    static func pack(_ value: SIMD4<Float>) -> UInt32 {
        @inline(__always) func byte(_ x: Float) -> UInt32 { UInt32(min(max(x + 0.5, 0), 255)) }
        return byte(value.x) | byte(value.y) << 8 | byte(value.z) << 16 | 0xFF00_0000
    }
}
