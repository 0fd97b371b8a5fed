import Dispatch
#if canImport(Glibc)
import Glibc
import StoryBase
#endif

/// A story picture placed on screen: what to draw and where.
public struct TexturedFace: Sendable {
    public var texture: RGBAImage
    public var placement: FacePlacement
    /// Whether the texture has transparent parts to keep (an overlay-only render's faces): then
    /// it is drawn "over" the canvas (`Rasterizer+Translucent.swift`), not as an opaque picture.
    public var isTranslucent: Bool

    public init(texture: RGBAImage, placement: FacePlacement, isTranslucent: Bool = false) {
        self.texture = texture
        self.placement = placement
        self.isTranslucent = isTranslucent
    }
}

/// Draws textured faces onto a canvas: perspective-correct, bilinear, with anti-aliased edges.
///
/// Faces must not overlap (cube faces and slide pages only meet at their shared edge). Each
/// face adds `coverage × (colour − background)` to a background-filled canvas, so where two
/// anti-aliased edges meet, their coverages sum to one and no background seam shows through.
/// Faces are opaque; a background that is not keeps its alpha around them, and their edges
/// blend into it in straight alpha (`Rasterizer+Transparency.swift`). A face marked translucent
/// is drawn "over" the canvas instead (`Rasterizer+Translucent.swift`).
///
/// Rows are split across threads. Every pixel is computed from its own coordinates only, so the
/// output is byte-identical whatever the number of threads.
public final class Rasterizer: Sendable {
    /// How pixels are computed.
    public enum InnerLoop: Sendable {
        /// SIMD: no edge maths inside a face, where eight pixels at a time go through the C span
        /// kernel (AVX2 gathers, float blend) on CPUs that have it, or `portableVector` elsewhere.
        case vector
        /// The Swift eight-lane loop `vector` falls back to; selectable so it stays tested.
        case portableVector
        /// One pixel at a time, every edge every pixel: the reference the fast path is tested against.
        case scalarReference
    }

    public let threads: Int
    public let innerLoop: InnerLoop

    public init(threads: Int = Rasterizer.defaultThreadCount, innerLoop: InnerLoop = .vector) {
        precondition(threads >= 1, "a rasterizer needs at least one thread")
        self.threads = threads
        self.innerLoop = innerLoop
    }

    /// One thread per core.
    public static var defaultThreadCount: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// Fills `canvas` with `background`, then draws `faces` on it.
    /// `clock`, when given, is charged the CPU time of every band under `.raster`.
    public func draw(_ faces: [TexturedFace], background: RGBAColor, into canvas: inout RGBAImage,
                     clock: StageClock? = nil) {
        // A story at rest covers the screen texel for pixel: the frame is its picture, unchanged,
        // copied into the canvas's own storage. Handing the picture's storage over instead would
        // drop the reusable canvas, and the picture's next writer (its decode thread, converting
        // the next frame into it) would then copy it and allocate anyway.
        if faces.count == 1, faces[0].isPixelExact(width: canvas.width, height: canvas.height),
           !faces[0].isTranslucent || background.alpha == 0 {
            let started = clock == nil ? 0 : StageClock.threadCPUSeconds()
            canvas.copyPixels(from: faces[0].texture)
            clock?.add(.raster, StageClock.threadCPUSeconds() - started)
            return
        }
        let prepared = faces.compactMap { PreparedFace($0, canvasWidth: canvas.width, canvasHeight: canvas.height) }
        let width = canvas.width, height = canvas.height
        let bands = min(height, threads == 1 ? 1 : threads * 8)
        let vector = innerLoop != .scalarReference
        let spanKernel = innerLoop == .vector && PreparedFace.hasSpanKernel
        canvas.pixels.withUnsafeMutableBufferPointer { buffer in
            let target = CanvasPointer(base: buffer.baseAddress!, width: width, height: height)
            let work: @Sendable (Int) -> Void = { band in
                let started = clock == nil ? 0 : StageClock.threadCPUSeconds()
                let rows = (height * band / bands)..<(height * (band + 1) / bands)
                target.fill(rows: rows, with: background)
                for face in prepared {
                    if face.isTranslucent {
                        face.drawTranslucent(rows: rows, into: target, background: background)
                    } else if vector {
                        face.drawVector(rows: rows, into: target, background: background, spanKernel: spanKernel)
                    } else {
                        face.draw(rows: rows, into: target, background: background)
                    }
                }
                clock?.add(.raster, StageClock.threadCPUSeconds() - started)
            }
            if bands == 1 {
                work(0)
            } else {
                DispatchQueue.concurrentPerform(iterations: bands, execute: work)
            }
        }
    }
}

extension TexturedFace {
    /// Whether the face maps its texture one texel to one pixel over the whole canvas, with no
    /// shading: then bilinear sampling at pixel centres returns the texels themselves. (Story
    /// pictures are opaque; the player flattens any alpha when it converts them.)
    public func isPixelExact(width: Int, height: Int) -> Bool {
        guard texture.width == width, texture.height == height, placement.brightness == 1 else { return false }
        let exact = Homography([Double(width), 0, 0, 0, Double(height), 0, 0, 0, 1])
        return placement.textureToScreen == exact
    }
}

// MARK: - Canvas access across threads

/// The canvas's bytes, shared by the band workers; each writes only its own rows.
///
/// `@unchecked` because the compiler cannot see that the rows are disjoint: it checks whole
/// values, not ranges of one buffer. Safe because each worker is given its own row range, the
/// canvas is not touched by anyone else until `concurrentPerform` returns (which orders every
/// worker's writes before the caller's next read), and no worker keeps the pointer afterwards.
struct CanvasPointer: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>
    let width: Int
    let height: Int

    func fill(rows: Range<Int>, with color: RGBAColor) {
        let word = color.packed
        let raw = UnsafeMutableRawPointer(base + rows.lowerBound * width * 4)
        let words = raw.bindMemory(to: UInt32.self, capacity: rows.count * width)
        for i in 0..<(rows.count * width) { words[i] = word }
    }
}

// MARK: - One face, ready to draw

/// A face's screen → texture map and edge lines, in the form the inner loop wants.
struct PreparedFace: Sendable {
    let texture: RGBAImage
    /// Screen → (u·w, v·w, w), row-major.
    let inverse: [Float]
    /// Edge lines a·X + b·Y + c, in pixels, positive inside.
    let edges: [SIMD3<Float>]
    /// The same four lines by coefficient, for the vector path (an unused slot is always inside).
    let edgeA: SIMD4<Float>, edgeB: SIMD4<Float>, edgeC: SIMD4<Float>
    let rowRange: Range<Int>
    let brightness: Float
    let isTranslucent: Bool

    init?(_ face: TexturedFace, canvasWidth: Int, canvasHeight: Int) {
        let corners = face.placement.corners
        guard corners.count == 4, let inverse = face.placement.textureToScreen.inverse else { return nil }
        // A face seen nearly edge-on covers no pixel worth drawing.
        let area = PreparedFace.signedArea(corners)
        guard abs(area) > 0.25 else { return nil }
        let centroid = corners.reduce(SIMD2<Double>(0, 0), +) / 4
        var edges: [SIMD3<Float>] = []
        for i in 0..<4 {
            let p = corners[i], q = corners[(i + 1) % 4]
            var normal = SIMD2(-(q.y - p.y), q.x - p.x)
            let length = (normal * normal).sum().squareRoot()
            guard length > 1e-9 else { continue }
            normal /= length
            var c = -(normal * p).sum()
            if (normal * centroid).sum() + c < 0 { normal = -normal; c = -c }
            edges.append(SIMD3(Float(normal.x), Float(normal.y), Float(c)))
        }
        let ys = corners.map(\.y)
        let top = max(0, Int((ys.min()! - 1).rounded(.down)))
        let bottom = min(canvasHeight, Int((ys.max()! + 1).rounded(.up)))
        guard top < bottom else { return nil }
        self.texture = face.texture
        self.inverse = inverse.m.map { Float($0) }
        self.edges = edges
        var a = SIMD4<Float>(repeating: 0), b = SIMD4<Float>(repeating: 0), c = SIMD4<Float>(repeating: 1e9)
        for (i, e) in edges.prefix(4).enumerated() { a[i] = e.x; b[i] = e.y; c[i] = e.z }
        edgeA = a; edgeB = b; edgeC = c
        self.rowRange = top..<bottom
        self.brightness = Float(face.placement.brightness)
        self.isTranslucent = face.isTranslucent
    }

    static func signedArea(_ p: [SIMD2<Double>]) -> Double {
        var sum = 0.0
        for i in 0..<p.count {
            let a = p[i], b = p[(i + 1) % p.count]
            sum += a.x * b.y - b.x * a.y
        }
        return sum / 2
    }

    /// The pixel columns of row `y` whose centres lie within half a pixel of the face.
    func span(row y: Int, width: Int) -> Range<Int> {
        span(row: y, width: width, distance: -0.5)
    }

    /// The pixel columns of row `y` whose centres are at least `distance` pixels inside every edge.
    func span(row y: Int, width: Int, distance: Float) -> Range<Int> {
        let py = Float(y) + 0.5
        var lo: Float = 0, hi = Float(width)
        for i in 0..<4 {
            let ea = edgeA[i]
            let rest = edgeB[i] * py + edgeC[i]
            if ea > 1e-6 {
                lo = max(lo, (distance - rest) / ea)
            } else if ea < -1e-6 {
                hi = min(hi, (distance - rest) / ea)
            } else if rest < distance {
                return 0..<0
            }
        }
        let first = max(0, Int((lo - 0.5).rounded(.up)))
        let last = min(width - 1, Int((hi - 0.5).rounded(.down)))
        return first <= last ? first..<(last + 1) : 0..<0
    }

    func draw(rows: Range<Int>, into canvas: CanvasPointer, background: RGBAColor) {
        let visibleRows = rows.clamped(to: rowRange)
        guard !visibleRows.isEmpty else { return }
        let tw = texture.width, th = texture.height
        let twf = Float(tw), thf = Float(th)
        let maxX = Float(tw - 1), maxY = Float(th - 1)
        let m = inverse
        let bgR = Float(background.red), bgG = Float(background.green), bgB = Float(background.blue)
        let transparent = TransparentBackground(background)
        let shade = brightness
        texture.pixels.withUnsafeBufferPointer { tex in
            let t = tex.baseAddress!
            for y in visibleRows {
                let columns = span(row: y, width: canvas.width)
                guard !columns.isEmpty else { continue }
                let py = Float(y) + 0.5
                let rowU = m[1] * py + m[2], rowV = m[4] * py + m[5], rowW = m[7] * py + m[8]
                let edgeRest = edges.map { $0.y * py + $0.z }
                let out = canvas.base + y * canvas.width * 4
                for x in columns {
                    let px = Float(x) + 0.5
                    var coverage: Float = 1
                    for (i, e) in edges.enumerated() {
                        let d = e.x * px + edgeRest[i] + 0.5
                        if d < coverage { coverage = max(0, d) }
                    }
                    guard coverage > 0 else { continue }
                    let w = m[6] * px + rowW
                    let u = (m[0] * px + rowU) / w
                    let v = (m[3] * px + rowV) / w
                    // Texel centres sit at half-integers; clamp to the edge texels.
                    let sx = min(max(u * twf - 0.5, 0), maxX)
                    let sy = min(max(v * thf - 0.5, 0), maxY)
                    let x0 = Int(sx), y0 = Int(sy)
                    let fx = sx - Float(x0), fy = sy - Float(y0)
                    let x1 = min(x0 + 1, tw - 1), y1 = min(y0 + 1, th - 1)
                    let r0 = t + y0 * tw * 4, r1 = t + y1 * tw * 4
                    let o = out + x * 4
                    @inline(__always) func texel(_ c: Int) -> Float {
                        let top = Float(r0[x0 * 4 + c]) + (Float(r0[x1 * 4 + c]) - Float(r0[x0 * 4 + c])) * fx
                        let bottom = Float(r1[x0 * 4 + c]) + (Float(r1[x1 * 4 + c]) - Float(r1[x0 * 4 + c])) * fx
                        return top + (bottom - top) * fy
                    }
                    if let transparent {
                        let colour = SIMD4(texel(0), texel(1), texel(2), 0) * shade
                        PreparedFace.addEdge(colour, coverage: coverage, over: transparent, at: UnsafeMutableRawPointer(o))
                        continue
                    }
                    let weight = coverage * shade
                    @inline(__always) func blend(_ c: Int, _ bg: Float) {
                        let value = Float(o[c]) + texel(c) * weight - bg * coverage
                        o[c] = UInt8(min(max(value + 0.5, 0), 255))
                    }
                    blend(0, bgR); blend(1, bgG); blend(2, bgB)
                    o[3] = 255
                }
            }
        }
    }
}
