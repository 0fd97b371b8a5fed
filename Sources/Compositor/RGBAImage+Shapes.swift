import Foundation

// Anti-aliased vector shapes for overlays, drawn with coverage from the distance to the shape's
// edge, so they look the same at any canvas size.

extension RGBAImage {
    /// A ring arc centred at (`cx`, `cy`), from `start` to `end` radians (clockwise from 12
    /// o'clock, as a spinner turns), with round ends.
    public mutating func drawArc(cx: Double, cy: Double, radius: Double, thickness: Double,
                                 start: Double, end: Double, color: RGBAColor) {
        let half = thickness / 2
        let sweep = max(0, min(2 * Double.pi, end - start))
        let reach = radius + half + 1
        guard let columns = pixels(from: cx - reach, to: cx + reach, count: width),
              let rows = pixels(from: cy - reach, to: cy + reach, count: height) else { return }
        let capA = SIMD2(cx + radius * sin(start), cy - radius * cos(start))
        let capB = SIMD2(cx + radius * sin(start + sweep), cy - radius * cos(start + sweep))
        paint(columns: columns, rows: rows, color: color) { x, y in
            let px = Double(x) + 0.5 - cx, py = Double(y) + 0.5 - cy
            // Angle clockwise from 12 o'clock, relative to the arc's start.
            var angle = atan2(px, -py) - start
            angle = angle.truncatingRemainder(dividingBy: 2 * Double.pi)
            if angle < 0 { angle += 2 * Double.pi }
            let distance: Double
            if angle <= sweep {
                distance = abs((px * px + py * py).squareRoot() - radius) - half
            } else {
                let p = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
                let a = p - capA, b = p - capB
                distance = min((a * a).sum().squareRoot(), (b * b).sum().squareRoot()) - half
            }
            return min(max(0.5 - distance, 0), 1)
        }
    }

    /// A filled rectangle with rounded corners, anti-aliased, in pixel coordinates.
    public mutating func fillRoundedRect(x: Double, y: Double, width w: Double, height h: Double,
                                         radius: Double, color: RGBAColor) {
        guard w > 0, h > 0,
              let columns = pixels(from: x - 1, to: x + w + 1, count: width),
              let rows = pixels(from: y - 1, to: y + h + 1, count: height) else { return }
        let box = RoundedBox(x: x, y: y, width: w, height: h, radius: radius)
        paint(columns: columns, rows: rows, color: color) { px, py in box.coverage(px, py) }
    }

    /// `fillRoundedRect`'s pixels outside `covered` only: a ring round a tile that is pasted
    /// over `covered` next (its rows and columns whole, in pixels) need not be painted under it,
    /// which was most of a grid speaker ring's cost. The same pixels as `fillRoundedRect` there.
    public mutating func fillRoundedRect(x: Double, y: Double, width w: Double, height h: Double, radius: Double,
                                         color: RGBAColor, outside covered: (columns: Range<Int>, rows: Range<Int>)) {
        guard w > 0, h > 0,
              let columns = pixels(from: x - 1, to: x + w + 1, count: width),
              let rows = pixels(from: y - 1, to: y + h + 1, count: height) else { return }
        let box = RoundedBox(x: x, y: y, width: w, height: h, radius: radius)
        let innerColumns = (max(covered.columns.lowerBound, columns.lowerBound), min(covered.columns.upperBound, columns.upperBound + 1))
        let innerRows = (max(covered.rows.lowerBound, rows.lowerBound), min(covered.rows.upperBound, rows.upperBound + 1))
        guard innerColumns.0 < innerColumns.1, innerRows.0 < innerRows.1 else {
            paint(columns: columns, rows: rows, color: color) { box.coverage($0, $1) }
            return
        }
        let inner = (columns: innerColumns.0..<innerColumns.1, rows: innerRows.0..<innerRows.1)
        // Above and below the covered rows, whole; beside them, the columns left and right.
        if rows.lowerBound < inner.rows.lowerBound {
            paint(columns: columns, rows: rows.lowerBound...(inner.rows.lowerBound - 1), color: color) { box.coverage($0, $1) }
        }
        if inner.rows.upperBound <= rows.upperBound {
            paint(columns: columns, rows: inner.rows.upperBound...rows.upperBound, color: color) { box.coverage($0, $1) }
        }
        let middle = inner.rows.lowerBound...(inner.rows.upperBound - 1)
        if columns.lowerBound < inner.columns.lowerBound {
            paint(columns: columns.lowerBound...(inner.columns.lowerBound - 1), rows: middle, color: color) { box.coverage($0, $1) }
        }
        if inner.columns.upperBound <= columns.upperBound {
            paint(columns: inner.columns.upperBound...columns.upperBound, rows: middle, color: color) { box.coverage($0, $1) }
        }
    }

    /// Blends `color` over the whole of row `y`, at full coverage: what `fillRoundedRect` does for
    /// a rectangle one row high and as wide as the picture, with the same pixels as a result.
    /// The overlay's scrim is 60-odd such rows on every frame, and pixel by pixel it was the
    /// largest part of the overlay step (about 4 ms a frame at 720x1280); over an opaque row
    /// `paint` blends it through one 256-entry table per channel instead (`BlendTables`).
    public mutating func blendRow(_ y: Int, color: RGBAColor) {
        guard y >= 0, y < height, width > 0, color.alpha > 0 else { return }
        paint(columns: 0...(width - 1), rows: y...y, color: color) { _, _ in 1 }
    }

    /// Paints `picture` (same size or not) inside a circle, scaled to `diameter` pixels across,
    /// anti-aliased at the rim: an avatar bubble.
    public mutating func drawCircular(_ picture: RGBAImage, cx: Double, cy: Double, radius: Double) {
        guard picture.width >= 2, picture.height >= 2, radius > 0 else { return }
        let sampler = BilinearSampler(texture: picture)
        guard let columns = pixels(from: cx - radius - 1, to: cx + radius + 1, count: width),
              let rows = pixels(from: cy - radius - 1, to: cy + radius + 1, count: height) else { return }
        let side = 2 * radius
        picture.pixels.withUnsafeBufferPointer { source in
            let base = UnsafeRawPointer(source.baseAddress!)
            for py in rows {
                for px in columns {
                    let dx = Double(px) + 0.5 - cx, dy = Double(py) + 0.5 - cy
                    let coverage = min(max(0.5 - ((dx * dx + dy * dy).squareRoot() - radius), 0), 1)
                    guard coverage > 0 else { continue }
                    // Cover: the picture's shorter side spans the circle.
                    let aspect = Double(picture.width) / Double(picture.height)
                    let u = aspect >= 1 ? 0.5 + dx / side / aspect : 0.5 + dx / side
                    let v = aspect >= 1 ? 0.5 + dy / side : 0.5 + dy / side * aspect
                    let value = sampler.sample(base, u: Float(u), v: Float(v))
                    let packed = BilinearSampler.pack(value)
                    let color = RGBAColor(red: UInt8(packed & 0xFF), green: UInt8(packed >> 8 & 0xFF), blue: UInt8(packed >> 16 & 0xFF))
                    blend(x: px, y: py, color: color, coverage: coverage)
                }
            }
        }
    }

    /// The pixel indices, within `0..<count`, that a shape reaching from `low` to `high` touches;
    /// nil when none. Clamped before the conversion to `Int`, so a shape far off the picture (or
    /// at a non-finite place) draws nothing instead of trapping.
    func pixels(from low: Double, to high: Double, count: Int) -> ClosedRange<Int>? {
        guard low.isFinite, high.isFinite, count > 0 else { return nil }
        let first = Int(min(max(low, 0), Double(count))), last = Int(min(max(high, -1), Double(count - 1)))
        return first <= last ? first...last : nil
    }

    /// Blends `color` into the region by `coverage(x, y)` of each pixel. Whether the region is
    /// opaque is asked once per shape, so that over opaque pictures (all but a frame with a
    /// transparent background) the loop is the plain blend, with no test per pixel.
    @inline(__always)
    mutating func paint(columns: ClosedRange<Int>, rows: ClosedRange<Int>, color: RGBAColor,
                        coverage: (Int, Int) -> Double) {
        if isOpaque(columns: columns, rows: rows) {
            // Inside the shape the coverage is 1: the mix is then one table per channel
            // (`BlendTables`), the same expression without a rounding per channel.
            let red = BlendTables.table(alpha: color.alpha, value: color.red)
            let green = BlendTables.table(alpha: color.alpha, value: color.green)
            let blue = BlendTables.table(alpha: color.alpha, value: color.blue)
            let width = self.width
            pixels.withUnsafeMutableBufferPointer { pixels in
                for y in rows {
                    for x in columns {
                        let covered = coverage(x, y), i = (y * width + x) * 4
                        guard covered == 1 else {
                            RGBAImage.mixOpaque(&pixels, at: i, color: color, coverage: covered)
                            continue
                        }
                        pixels[i] = red[Int(pixels[i])]
                        pixels[i + 1] = green[Int(pixels[i + 1])]
                        pixels[i + 2] = blue[Int(pixels[i + 2])]
                    }
                }
            }
        } else {
            for y in rows { for x in columns { blend(x: x, y: y, color: color, coverage: coverage(x, y)) } }
        }
    }

    /// Whether every pixel of the region has alpha 255: an AND of whole pixels along each row,
    /// which the compiler vectorises.
    func isOpaque(columns: ClosedRange<Int>, rows: ClosedRange<Int>) -> Bool {
        pixels.withUnsafeBytes { raw in
            let words = raw.bindMemory(to: UInt32.self)
            var all: UInt32 = 0xFFFF_FFFF
            for y in rows { for x in columns { all &= words[y * width + x] } }
            return all >> 24 == 0xFF
        }
    }

    /// Mixes `color` into one opaque pixel by `coverage` × the colour's own alpha.
    @inline(__always)
    mutating func blendOpaque(x: Int, y: Int, color: RGBAColor, coverage: Double) {
        RGBAImage.mixOpaque(&pixels, at: (y * width + x) * 4, color: color, coverage: coverage)
    }

    /// `blendOpaque` on the pixel whose red byte is `pixels[i]`, in the picture's storage or a
    /// pointer to it.
    @inline(__always)
    static func mixOpaque<Pixels: MutableCollection<UInt8>>(_ pixels: inout Pixels, at i: Int, color: RGBAColor,
                                                            coverage: Double) where Pixels.Index == Int {
        let amount = coverage * Double(color.alpha) / 255
        guard amount > 0 else { return }
        pixels[i] = mix(pixels[i], toward: color.red, by: amount)
        pixels[i + 1] = mix(pixels[i + 1], toward: color.green, by: amount)
        pixels[i + 2] = mix(pixels[i + 2], toward: color.blue, by: amount)
    }

    /// `value` moved toward `target` by `amount` (0…1), rounded: the one expression every
    /// opaque blend uses, `BlendTables` included, so their pixels agree.
    @inline(__always)
    static func mix(_ value: UInt8, toward target: UInt8, by amount: Double) -> UInt8 {
        UInt8((Double(value) * (1 - amount) + Double(target) * amount).rounded())
    }

    /// Mixes `color` into one pixel by `coverage` × the colour's own alpha: "over", in straight
    /// alpha where the pixel is not opaque.
    @inline(__always)
    mutating func blend(x: Int, y: Int, color: RGBAColor, coverage: Double) {
        let i = (y * width + x) * 4
        guard pixels[i + 3] != 255 else {
            blendOpaque(x: x, y: y, color: color, coverage: coverage)
            return
        }
        let amount = min(coverage * Double(color.alpha) / 255, 1)
        guard amount > 0 else { return }
        // out.a = a_s + a_d(1 − a_s), out.rgb = (rgb_s·a_s + rgb_d·a_d(1 − a_s)) / out.a.
        let keep = Double(pixels[i + 3]) / 255 * (1 - amount)
        let alpha = amount + keep
        pixels[i] = UInt8(min((Double(color.red) * amount + Double(pixels[i]) * keep) / alpha, 255).rounded())
        pixels[i + 1] = UInt8(min((Double(color.green) * amount + Double(pixels[i + 1]) * keep) / alpha, 255).rounded())
        pixels[i + 2] = UInt8(min((Double(color.blue) * amount + Double(pixels[i + 2]) * keep) / alpha, 255).rounded())
        pixels[i + 3] = UInt8((alpha * 255).rounded())
    }
}

/// A rectangle with rounded corners as `fillRoundedRect` covers it: the coverage of a pixel
/// from its signed distance to the box, one expression for the whole fill and for the parts of
/// one (`fillRoundedRect(…outside:)`).
struct RoundedBox {
    let cx: Double, cy: Double, hx: Double, hy: Double, r: Double

    init(x: Double, y: Double, width w: Double, height h: Double, radius: Double) {
        r = min(radius, w / 2, h / 2)
        cx = x + w / 2
        cy = y + h / 2
        hx = w / 2 - r
        hy = h / 2 - r
    }

    /// Pixel (`px`, `py`)'s coverage, 0…1.
    @inline(__always)
    func coverage(_ px: Int, _ py: Int) -> Double {
        let dx = abs(Double(px) + 0.5 - cx) - hx, dy = abs(Double(py) + 0.5 - cy) - hy
        let outside = (max(dx, 0) * max(dx, 0) + max(dy, 0) * max(dy, 0)).squareRoot()
        let distance = outside + min(max(dx, dy), 0) - r
        return min(max(0.5 - distance, 0), 1)
    }
}
