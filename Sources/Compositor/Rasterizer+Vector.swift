// The rasterizer's fast inner loop. For each row it finds the span the face touches and, inside
// it, the span where every edge is at least half a pixel away (coverage exactly 1). The inside
// goes to the C span kernel (`raster_draw_span`: eight pixels per AVX2 step, texels gathered and
// blended in 16-bit fixed point) where the CPU has it. Elsewhere eight pixels at a time get their texel
// positions (u/w, v/w and 1/w) as SIMD8 lanes, then each pixel blends its four texels in
// integers. Only the few pixels along the edges take the general anti-aliased path.

import CRasterSupport

extension PreparedFace {
    /// Whether this CPU runs the C span kernel (`raster_span_kernel_available`: AVX2 and FMA).
    /// Elsewhere the Swift loop below draws the inside of faces.
    static let hasSpanKernel = raster_span_kernel_available() != 0

    func drawVector(rows: Range<Int>, into canvas: CanvasPointer, background: RGBAColor, spanKernel: Bool) {
        let visibleRows = rows.clamped(to: rowRange)
        guard !visibleRows.isEmpty, texture.width >= 2, texture.height >= 2 else {
            draw(rows: rows, into: canvas, background: background)
            return
        }
        let paint = VectorPaint(face: self, background: background)
        texture.pixels.withUnsafeBufferPointer { pixels in
            let texels = UnsafeRawPointer(pixels.baseAddress!)
            for y in visibleRows {
                let outer = span(row: y, width: canvas.width)
                guard !outer.isEmpty else { continue }
                let inner = span(row: y, width: canvas.width, distance: 0.5).clamped(to: outer)
                let row = VectorRow(y: y, paint: paint, texels: texels,
                                    out: UnsafeMutableRawPointer(canvas.base + y * canvas.width * 4))
                row.draw(outer: outer, inner: inner, spanKernel: spanKernel)
            }
        }
    }
}

/// What every row of a face is drawn with: the inverse mapping (screen to texture), the edges,
/// the texture's sampler, the background and the shade.
private struct VectorPaint {
    let sampler: BilinearSampler
    let m0: Float, m1: Float, m2: Float, m3: Float, m4: Float, m5: Float, m6: Float, m7: Float, m8: Float
    let edgeA: SIMD4<Float>, edgeB: SIMD4<Float>, edgeC: SIMD4<Float>
    let background4: SIMD4<Float>
    let transparent: TransparentBackground?
    let shade: Float
    /// The shade, clamped, in the integer blend's 1/8192ths.
    let scale: Float

    init(face: PreparedFace, background: RGBAColor) {
        sampler = BilinearSampler(texture: face.texture)
        let m = face.inverse
        (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        (edgeA, edgeB, edgeC) = (face.edgeA, face.edgeB, face.edgeC)
        background4 = SIMD4<Float>(Float(background.red), Float(background.green), Float(background.blue), 0)
        transparent = TransparentBackground(background)
        shade = face.brightness
        scale = BilinearSampler.weightOne * min(max(shade, 0), 1)
    }
}

/// One screen row of a face: its edge pixels anti-aliased, its inside (coverage exactly 1) by
/// the C span kernel or eight pixels at a time.
private struct VectorRow {
    let paint: VectorPaint
    let texels: UnsafeRawPointer
    let out: UnsafeMutableRawPointer
    let rowU: Float, rowV: Float, rowW: Float
    /// The edges' distances at x = 0 on this row.
    let rest: SIMD4<Float>
    /// Texel space directly: u·W − ½ and v·H − ½ are the sample positions.
    let su: Float, sv: Float, rowSU: Float, rowSV: Float

    @inline(__always)
    init(y: Int, paint: VectorPaint, texels: UnsafeRawPointer, out: UnsafeMutableRawPointer) {
        self.paint = paint
        self.texels = texels
        self.out = out
        let py = Float(y) + 0.5
        rowU = paint.m1 * py + paint.m2
        rowV = paint.m4 * py + paint.m5
        rowW = paint.m7 * py + paint.m8
        rest = paint.edgeB * py + paint.edgeC
        su = paint.m0 * paint.sampler.widthF
        sv = paint.m3 * paint.sampler.heightF
        rowSU = rowU * paint.sampler.widthF
        rowSV = rowV * paint.sampler.heightF
    }

    /// The row's pixels in `outer`, those in `inner` fully covered.
    @inline(__always)
    func draw(outer: Range<Int>, inner: Range<Int>, spanKernel: Bool) {
        let edgeEnd = inner.isEmpty ? outer.upperBound : inner.lowerBound
        for x in outer.lowerBound..<edgeEnd { edgePixel(x) }
        guard !inner.isEmpty else { return }
        var x = inner.lowerBound
        if spanKernel {
            drawWithKernel(inner)
            x = inner.upperBound
        }
        drawInside(x..<inner.upperBound)
        for x in inner.upperBound..<outer.upperBound { edgePixel(x) }
    }

    /// A pixel along an edge: the texel weighted by the face's coverage of the pixel, over what
    /// is there.
    @inline(__always)
    func edgePixel(_ x: Int) {
        let px = Float(x) + 0.5
        let distance = paint.edgeA * px + rest + 0.5
        let coverage = min(max(min(min(distance.x, distance.y), min(distance.z, distance.w)), 0), 1)
        guard coverage > 0 else { return }
        let w = paint.m6 * px + rowW
        let texel = paint.sampler.sample(texels, u: (paint.m0 * px + rowU) / w, v: (paint.m3 * px + rowV) / w)
        let slot = out + x * 4
        if let transparent = paint.transparent {
            PreparedFace.addEdge(texel * paint.shade, coverage: coverage, over: transparent, at: slot)
            return
        }
        let word = slot.load(as: UInt32.self)
        let current = SIMD4<Float>(Float(word & 0xFF), Float(word >> 8 & 0xFF), Float(word >> 16 & 0xFF), 0)
        let value = current + texel * (coverage * paint.shade) - paint.background4 * coverage
        slot.storeBytes(of: BilinearSampler.pack(value), as: UInt32.self)
    }

    /// The inside by the C span kernel (`raster_draw_span`).
    @inline(__always)
    func drawWithKernel(_ inside: Range<Int>) {
        let span = raster_span(su: su, row_su: rowSU, sv: sv, row_sv: rowSV, sw: paint.m6, row_w: rowW,
                               shade: min(max(paint.shade, 0), 1))
        raster_draw_span(out.assumingMemoryBound(to: UInt32.self), Int32(inside.lowerBound),
                         Int32(inside.upperBound), texels.assumingMemoryBound(to: UInt8.self),
                         Int32(paint.sampler.width), Int32(paint.sampler.height), span)
    }

    /// The inside in Swift: eight pixels' texel positions as SIMD8 lanes, then each pixel's
    /// integer blend; the last few one at a time.
    @inline(__always)
    func drawInside(_ inside: Range<Int>) {
        let sampler = paint.sampler, scale = paint.scale, m6 = paint.m6
        let lanes = SIMD8<Float>(0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5)
        var x = inside.lowerBound
        while x + 8 <= inside.upperBound {
            let px = lanes + Float(x)
            let reciprocal = 1 / (m6 * px + rowW)
            let sx = (su * px + rowSU) * reciprocal - 0.5
            let sy = (sv * px + rowSV) * reciprocal - 0.5
            let pixel = out + x * 4
            // The next screen row reads the texture one or two rows further down. Start
            // fetching those lines now: following a slanted line through the texture, the
            // hardware prefetcher falls behind.
            sampler.prefetch(texels, sx: sx[0], sy: sy[0])
            @inline(__always) func put(_ lane: Int) {
                pixel.storeBytes(of: sampler.blend(texels, sx: sx[lane], sy: sy[lane], scale: scale),
                                 toByteOffset: lane * 4, as: UInt32.self)
            }
            put(0); put(1); put(2); put(3); put(4); put(5); put(6); put(7)
            x += 8
        }
        while x < inside.upperBound {
            let px = Float(x) + 0.5
            let reciprocal = 1 / (m6 * px + rowW)
            let pixel = sampler.blend(texels, sx: (su * px + rowSU) * reciprocal - 0.5,
                                      sy: (sv * px + rowSV) * reciprocal - 0.5, scale: scale)
            (out + x * 4).storeBytes(of: pixel, as: UInt32.self)
            x += 1
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

    let width32: Int32, lastPairX: Int32, lastPairY: Int32, rowBytes: Int
    /// The last offset `prefetch` may ask for: its second line is one row further on.
    let lastPrefetch: Int

    init(texture: RGBAImage) {
        width32 = Int32(texture.width)
        lastPairX = Int32(texture.width - 2)
        lastPairY = Int32(texture.height - 2)
        rowBytes = texture.width * 4
        lastPrefetch = max(0, (texture.height - 1) * texture.width * 4 - 1)
        width = texture.width
        height = texture.height
        widthF = Float(width)
        heightF = Float(height)
        maxX = Float(width - 1)
        maxY = Float(height - 1)
    }

    /// The 2×2 texels around texture coordinates (u, v) in [0, 1]², clamped to the texture: the
    /// top-left one and the weights of its right and lower neighbours. Every sampler reads the
    /// same footprint, so straight and premultiplied samples of one face line up.
    @inline(__always)
    func footprint(u: Float, v: Float) -> (x0: Int, y0: Int, fx: Float, fy: Float) {
        let sx = min(max(u * widthF - 0.5, 0), maxX)
        let sy = min(max(v * heightF - 0.5, 0), maxY)
        var x0 = Int(sx), y0 = Int(sy)
        var fx = sx - Float(x0), fy = sy - Float(y0)
        // On the last column (row) read the pair before it with weight 1 on the second texel:
        // the same value, without reading past the row.
        if x0 >= width - 1 { x0 = width - 2; fx = 1 }
        if y0 >= height - 1 { y0 = height - 2; fy = 1 }
        return (x0, y0, fx, fy)
    }

    /// The colour at texture coordinates (u, v) in [0, 1]², as four floats (alpha not used).
    @inline(__always)
    func sample(_ base: UnsafeRawPointer, u: Float, v: Float) -> SIMD4<Float> {
        let (x0, y0, fx, fy) = footprint(u: u, v: v)
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

    // MARK: - Eight pixels at a time, in integers

    /// Weights are in 1/8192ths (13 bits), so that 255 × weight fits the 21-bit lanes `blend`
    /// packs three channels into; the rounding error this adds is below 1/16 of a level.
    static let weightOne: Float = 8192

    /// A texel position clamped to the texture, NaN to the far edge. Written as comparisons
    /// rather than min()/max(), which handle NaN and so do not compile to minss/maxss.
    @inline(__always)
    func clamped(sx: Float, sy: Float) -> (Float, Float) {
        (sx < maxX ? (sx > 0 ? sx : 0) : maxX, sy < maxY ? (sy > 0 ? sy : 0) : maxY)
    }

    /// Prefetches the texture a little ahead of (sx, sy), two and three rows down, never past
    /// the texture's last byte.
    @inline(__always)
    func prefetch(_ base: UnsafeRawPointer, sx: Float, sy: Float) {
        let (cx, cy) = clamped(sx: sx, sy: sy)
        let ahead = (Int(Int32(cy)) &+ 2) &* rowBytes &+ Int(Int32(cx)) &* 4 &+ 64
        let offset = ahead < lastPrefetch ? ahead : lastPrefetch
        raster_prefetch(base + offset)
        raster_prefetch(base + offset + rowBytes)
    }

    /// The colour at texel position (sx, sy) (u·W − ½, v·H − ½) times `scale` (brightness in
    /// 1/8192ths), packed with alpha opaque. Clamping matches `sample(_:u:v:)`, without branches.
    /// The blend is in integers: two 8-byte loads give the four texels; each texel's R, G and B
    /// are spread into 21-bit lanes of one UInt64, so four multiplies blend all three channels.
    @inline(__always)
    func blend(_ base: UnsafeRawPointer, sx: Float, sy: Float, scale: Float) -> UInt32 {
        let (cx, cy) = clamped(sx: sx, sy: sy)
        // On the last column (row) read the pair before it, with weight 1 on the second texel.
        let ix = Int32(cx), iy = Int32(cy)
        let x0 = ix < lastPairX ? ix : lastPairX, y0 = iy < lastPairY ? iy : lastPairY
        let fx = cx - Float(x0), fy = cy - Float(y0)
        let offset = Int(y0 &* width32 &+ x0) &* 4
        let top = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        let bottom = base.loadUnaligned(fromByteOffset: offset &+ rowBytes, as: UInt64.self)
        let right = fx * scale, left = scale - right
        let bottomRight = right * fy, bottomLeft = left * fy
        @inline(__always) func fixed(_ weight: Float) -> UInt64 { UInt64(truncatingIfNeeded: Int32(weight + 0.5)) }
        @inline(__always) func spread(_ texel: UInt64) -> UInt64 {
            (texel & 0xFF) | (texel & 0xFF00) << 13 | (texel & 0xFF_0000) << 26
        }
        let sum = spread(top) &* fixed(left - bottomLeft)
            &+ spread(top >> 32) &* fixed(right - bottomRight)
            &+ spread(bottom) &* fixed(bottomLeft)
            &+ spread(bottom >> 32) &* fixed(bottomRight)
            &+ (4096 | 4096 << 21 | 4096 << 42)
        let red = UInt32(truncatingIfNeeded: sum >> 13) & 0xFF
        let green = UInt32(truncatingIfNeeded: sum >> 34) & 0xFF
        let blue = UInt32(truncatingIfNeeded: sum >> 55) & 0xFF
        return red | green << 8 | blue << 16 | 0xFF00_0000
    }

    /// Rounds to bytes, with alpha opaque.
    @inline(__always)
    static func pack(_ value: SIMD4<Float>) -> UInt32 {
        @inline(__always) func byte(_ x: Float) -> UInt32 { UInt32(min(max(x + 0.5, 0), 255)) }
        return byte(value.x) | byte(value.y) << 8 | byte(value.z) << 16 | 0xFF00_0000
    }
}
