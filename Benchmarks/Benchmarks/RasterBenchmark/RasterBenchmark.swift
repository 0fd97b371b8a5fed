import Benchmark
import Compositor
import CPixman
import Foundation

// Draws the two cube faces at f = 0.3 on 1080x1920 with one thread, with live-stories'
// rasterizer and with pixman's projective bilinear warp of the same quads, and reports covered
// megapixels per second for each. Before measuring, it checks that the two images agree within
// 2 levels on 99% of pixels, so both sides do the same work.

let width = 1080, height = 1920
let background = RGBAColor(red: 0, green: 0, blue: 0, alpha: 255)
let transition = PageTransition(style: .cube, perspective: 2.6667, shading: 0)
let placements = transition.faces(pageOffset: 0.3, width: width, height: height)

/// Gradients with a little noise, so that neither side profits from flat colour, while a
/// sub-texel difference in fixed-point rounding stays within the 2-level tolerance.
let textures: [RGBAImage] = (0..<2).map { seed in
    var generator = SplitMix(seed: UInt64(seed + 1))
    var image = RGBAImage(width: width, height: height)
    image.pixels.withUnsafeMutableBufferPointer { bytes in
        for i in stride(from: 0, to: bytes.count, by: 4) {
            let x = (i / 4) % width, y = (i / 4) / width
            let noise = UInt8(truncatingIfNeeded: generator.next() & 1)
            bytes[i] = UInt8(truncatingIfNeeded: x / 5) &+ noise
            bytes[i + 1] = UInt8(truncatingIfNeeded: y / 8) &+ noise
            bytes[i + 2] = UInt8(seed * 180) &+ noise
            bytes[i + 3] = 255
        }
    }
    return image
}
let faces = placements.map { TexturedFace(texture: textures[$0.page], placement: $0) }

/// SplitMix64, the same generator as the tests' (Tests/Support/SplitMix64.swift), copied: this
/// package sees only live-stories' products, and StoryTestSupport is kept out of them so that
/// no package depending on live-stories builds test code.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - The two renderers

let rasterizer = Rasterizer(threads: 1)

func drawLiveStories(into canvas: inout RGBAImage) {
    rasterizer.draw(faces, background: background, into: &canvas)
}

/// pixman: a destination → source transform per face, bilinear filtering, composited over the
/// face's bounding box onto the background.
func drawPixman(into canvas: inout RGBAImage) {
    canvas.fill(background)
    canvas.pixels.withUnsafeMutableBufferPointer { destination in
        let target = pixman_image_create_bits(PIXMAN_a8b8g8r8, Int32(width), Int32(height),
                                              UnsafeMutableRawPointer(destination.baseAddress!).assumingMemoryBound(to: UInt32.self),
                                              Int32(width * 4))
        defer { pixman_image_unref(target) }
        for face in faces {
            var texture = face.texture
            texture.pixels.withUnsafeMutableBufferPointer { source in
                let image = pixman_image_create_bits(PIXMAN_a8b8g8r8, Int32(texture.width), Int32(texture.height),
                                                     UnsafeMutableRawPointer(source.baseAddress!).assumingMemoryBound(to: UInt32.self),
                                                     Int32(texture.width * 4))
                defer { pixman_image_unref(image) }
                // Screen → texture pixels: the inverse homography, scaled from [0,1]² to texels.
                let inverse = face.placement.textureToScreen.inverse!
                let scale = Homography([Double(texture.width), 0, 0, 0, Double(texture.height), 0, 0, 0, 1])
                let xs = face.placement.corners.map(\.x), ys = face.placement.corners.map(\.y)
                let x0 = max(0, Int(xs.min()!.rounded(.down))), x1 = min(width, Int(xs.max()!.rounded(.up)))
                let y0 = max(0, Int(ys.min()!.rounded(.down))), y1 = min(height, Int(ys.max()!.rounded(.up)))
                // A homography is defined up to scale. pixman holds both the matrix and its
                // homogeneous results (u·w, v·w, w) in 16.16 fixed point, so scale it until the
                // largest result over the face's box is just inside ±32767: small enough not to
                // overflow, large enough to keep the perspective terms' digits.
                let raw = (scale * inverse).m
                var largest = 0.0
                for x in [Double(x0), Double(x1)] {
                    for y in [Double(y0), Double(y1)] {
                        for row in 0..<3 {
                            largest = max(largest, abs(raw[row * 3] * x + raw[row * 3 + 1] * y + raw[row * 3 + 2]))
                        }
                    }
                }
                let m = raw.map { $0 * 30_000 / largest }
                var floating = pixman_f_transform()
                for row in 0..<3 {
                    for column in 0..<3 {
                        withUnsafeMutablePointer(to: &floating.m) {
                            $0.withMemoryRebound(to: Double.self, capacity: 9) { $0[row * 3 + column] = m[row * 3 + column] }
                        }
                    }
                }
                var fixed = pixman_transform()
                _ = pixman_transform_from_pixman_f_transform(&fixed, &floating)
                _ = pixman_image_set_transform(image, &fixed)
                _ = pixman_image_set_filter(image, PIXMAN_FILTER_BILINEAR, nil, 0)
                pixman_image_set_repeat(image, PIXMAN_REPEAT_NONE)
                pixman_image_composite32(PIXMAN_OP_OVER, image, nil, target, Int32(x0), Int32(y0), 0, 0,
                                         Int32(x0), Int32(y0), Int32(x1 - x0), Int32(y1 - y0))
            }
        }
    }
}

// MARK: - Same work?

/// Covered pixels (what the faces draw), and the agreement of the two images.
let coveredPixels: Int = {
    var ours = RGBAImage(width: width, height: height)
    var theirs = RGBAImage(width: width, height: height)
    drawLiveStories(into: &ours)
    drawPixman(into: &theirs)
    var sentinel = RGBAImage(width: width, height: height)
    Rasterizer(threads: 1).draw(faces.map { TexturedFace(texture: RGBAImage(width: width, height: height, fill: .white), placement: $0.placement) },
                                background: background, into: &sentinel)
    var covered = 0, agreeing = 0
    for i in stride(from: 0, to: ours.pixels.count, by: 4) {
        if sentinel.pixels[i] > 0 { covered += 1 }
        let d = max(abs(Int(ours.pixels[i]) - Int(theirs.pixels[i])), abs(Int(ours.pixels[i + 1]) - Int(theirs.pixels[i + 1])),
                    abs(Int(ours.pixels[i + 2]) - Int(theirs.pixels[i + 2])))
        if d <= 2 { agreeing += 1 }
    }
    let share = Double(agreeing) / Double(width * height)
    if let folder = ProcessInfo.processInfo.environment["RASTER_BENCH_DUMP"] {
        try? ours.writePNG(to: folder + "/live-stories.png")
        try? theirs.writePNG(to: folder + "/pixman.png")
    }
    FileHandle.standardError.write(Data(String(format: "raster: %d covered pixels of %d; live-stories and pixman agree within 2 levels on %.2f%% of pixels",
                 covered, width * height, 100 * share).utf8 + [10]))
    precondition(share >= 0.99, "the two renderers agree on only \(100 * share)% of pixels: the comparison would not be of the same work")
    return covered
}()

// MARK: - Benchmarks

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .custom("covered MP/s", polarity: .prefersLarger, useScalingFactor: false)],
        warmupIterations: 2,
        maxDuration: .seconds(5),
        maxIterations: 40
    )
    let covered = coveredPixels
    Benchmark("cube faces f=0.3 1080x1920, one thread: live-stories") { measure($0, covered, drawLiveStories) }
    Benchmark("cube faces f=0.3 1080x1920, one thread: pixman") { measure($0, covered, drawPixman) }
}

/// Times `draw` over the benchmark's iterations, reporting covered megapixels per second.
func measure(_ benchmark: Benchmark, _ covered: Int, _ draw: (inout RGBAImage) -> Void) {
    var canvas = RGBAImage(width: width, height: height)
    for _ in benchmark.scaledIterations {
        let start = ContinuousClock.now
        draw(&canvas)
        let elapsed = ContinuousClock.now - start
        benchmark.measurement(.custom("covered MP/s", polarity: .prefersLarger, useScalingFactor: false),
                              Int(Double(covered) / 1e6 / elapsed.seconds))
        blackHole(canvas)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
