// Faces whose pictures are not opaque: an overlay-only render's, where each story's face carries
// only the viewer's UI (its layers, progress segments and captions) over nothing, to be laid over
// footage elsewhere. The opaque faces' rule (`canvas += coverage × (colour − background)`) needs
// every texel opaque; here each pixel takes the face's premultiplied bilinear sample, scaled by
// its coverage, one pixel at a time. Over a transparent background the samples are added
// (Porter-Duff "plus"): faces never overlap, so where two meet at the cube's edge their
// coverages sum to one and the seam is as opaque as the UI on either side ("over" would leave
// 1 − (1 − c)(1 − (1 − c)) of it, a lighter line). Over any other background each face is laid
// "over" it. Only such renders come here, and only while a face is off the pixel grid.

extension PreparedFace {
    /// Draws the face's rows in `rows` over `canvas` in straight alpha. The shade darkens the
    /// colour only: a turning face's transparent parts stay transparent.
    func drawTranslucent(rows: Range<Int>, into canvas: CanvasPointer, background: RGBAColor) {
        let visibleRows = rows.clamped(to: rowRange)
        guard !visibleRows.isEmpty, texture.width >= 2, texture.height >= 2 else { return }
        let sampler = BilinearSampler(texture: texture)
        let m = inverse
        let shade = SIMD4<Float>(brightness, brightness, brightness, 1)
        let adds = background.alpha == 0
        texture.pixels.withUnsafeBufferPointer { pixels in
            let texels = UnsafeRawPointer(pixels.baseAddress!)
            for y in visibleRows {
                let columns = span(row: y, width: canvas.width)
                guard !columns.isEmpty else { continue }
                let py = Float(y) + 0.5
                let rowU = m[1] * py + m[2], rowV = m[4] * py + m[5], rowW = m[7] * py + m[8]
                let rest = edgeB * py + edgeC
                let out = UnsafeMutableRawPointer(canvas.base + y * canvas.width * 4)
                for x in columns {
                    let px = Float(x) + 0.5
                    let distance = edgeA * px + rest + 0.5
                    let coverage = min(max(min(min(distance.x, distance.y), min(distance.z, distance.w)), 0), 1)
                    guard coverage > 0 else { continue }
                    let w = m[6] * px + rowW
                    let texel = sampler.samplePremultiplied(texels, u: (m[0] * px + rowU) / w, v: (m[3] * px + rowV) / w)
                    guard texel.w > 0 else { continue }
                    let slot = out + x * 4
                    let under = slot.load(as: UInt32.self)
                    let source = texel * shade * coverage
                    slot.storeBytes(of: adds ? StraightAlpha.plus(source, under: under) : StraightAlpha.over(source, under: under),
                                    as: UInt32.self)
                }
            }
        }
    }
}
