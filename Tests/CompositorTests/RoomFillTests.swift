@testable import Compositor
import XCTest

/// The room's blurred fill is made every frame a landscape (or any other shape of) camera is
/// large; its box reduction and its bilinear upscale were rewritten for speed (issue 33). These
/// hold both, and the fitted picture they make, to the bytes of the per-pixel code they
/// replaced, kept here as the reference.
final class RoomFillTests: XCTestCase {
    // MARK: - Box reduction

    /// Every factor from 1 to 40 on noisy pictures of odd and even sizes, whole and in parts:
    /// the same bytes as summing each block pixel by pixel.
    func testBoxReductionMatchesThePixelByPixelMeans() {
        var random = SplitMix64(seed: 33)
        for (width, height) in [(562, 1000), (704, 396), (37, 41), (2, 3), (1080, 1920), (101, 7)] {
            let picture = TestPictures.videoLike(width: width, height: height, seed: UInt64(width * height))
            for factor in width > 1000 ? [33, 60] : [1, 2, 3, 7, 16, 31, 33, 40] {
                let expected = Self.referenceBoxReduced(picture, by: factor)
                XCTAssertEqual(picture.boxReduced(by: factor), expected, "\(width)x\(height) by \(factor)")
                // A part of the reduced picture: the same bytes as that part cut from the whole.
                let left = Int(random.next() % UInt64(expected.width)), top = Int(random.next() % UInt64(expected.height))
                let w = 1 + Int(random.next() % UInt64(expected.width - left)), h = 1 + Int(random.next() % UInt64(expected.height - top))
                XCTAssertEqual(picture.boxReduced(by: factor, blockColumns: left..<(left + w), blockRows: top..<(top + h)),
                               expected.cropped(x: left, y: top, width: w, height: h),
                               "\(width)x\(height) by \(factor), blocks \(left)+\(w) x \(top)+\(h)")
            }
        }
    }

    // MARK: - Upscale

    /// Small pictures scaled up into areas of many shapes, around holes of every placement
    /// (none, inside, touching the edges, past them): the same bytes as sampling each pixel,
    /// and the hole left as it was.
    func testUpscaleMatchesThePerPixelSampler() {
        var random = SplitMix64(seed: 7)
        for (sw, sh) in [(17, 24), (2, 2), (32, 18), (5, 40)] {
            let small = TestPictures.videoLike(width: sw, height: sh, seed: UInt64(sw * 100 + sh))
            // A room's large area at 720x1280, and small and odd shapes (kept small: the
            // reference samples pixel by pixel, slowly in a debug build).
            for (width, height) in [(sw == 17 ? 704 : 141, sw == 17 ? 1000 : 200), (3, 5), (250, 251), (97, 330)] {
                let holes: [(x: Int, y: Int, width: Int, height: Int)] = [
                    (0, 0, 0, 0), (width / 5, 0, width / 2, height), (0, height / 4, width, height / 3),
                    (-3, -3, width + 6, 2), (Int(random.next() % UInt64(width)), Int(random.next() % UInt64(height)), 9, 11)]
                for hole in holes {
                    let marker = RGBAColor(red: 1, green: 2, blue: 3, alpha: 4)
                    var drawn = RGBAImage(width: width + 10, height: height + 6, fill: marker)
                    small.upscale(width: width, height: height, outside: hole, into: &drawn, at: (7, 5))
                    var expected = RGBAImage(width: width + 10, height: height + 6, fill: marker)
                    Self.referenceUpscale(small, width: width, height: height, outside: hole, into: &expected, at: (7, 5))
                    XCTAssertTrue(drawn == expected, "\(sw)x\(sh) into \(width)x\(height), hole \(hole)")
                }
            }
        }
    }

    // MARK: - The fitted picture

    /// A camera fitted into the large area, over its blurred fill: the same bytes as the fill
    /// made by the reference reduction, crop, blur and per-pixel upscale.
    func testFittedPictureMatchesTheReferenceFill() {
        for (picture, width, height) in [(TestPictures.videoLike(width: 562, height: 1000, seed: 1), 704, 1000),
                                         (TestPictures.videoLike(width: 640, height: 360, seed: 2), 688, 830),
                                         (TestPictures.videoLike(width: 300, height: 301, seed: 3), 330, 250)] {
            let (w, h) = RoomPicture.fittedSize(picture, width: width, height: height)
            let hole = (x: (width - w) / 2, y: (height - h) / 2, width: w, height: h)
            var expected = Self.referenceFillSource(picture, width: width, height: height)
            var reference = RGBAImage(width: width, height: height)
            Self.referenceUpscale(expected, width: width, height: height, outside: hole, into: &reference, at: (0, 0))
            reference.paste(picture.scaled(width: w, height: h), x: hole.x, y: hole.y)
            expected = reference
            XCTAssertTrue(RoomPicture.fitted(picture, width: width, height: height) == expected,
                          "\(picture.width)x\(picture.height) in \(width)x\(height)")
        }
    }

    // MARK: - The code replaced, as it was

    static func referenceBoxReduced(_ picture: RGBAImage, by factor: Int) -> RGBAImage {
        guard factor > 1 else { return picture }
        let width = picture.width, height = picture.height
        let w = max(1, (width + factor - 1) / factor), h = max(1, (height + factor - 1) / factor)
        var out = [UInt8](repeating: 255, count: w * h * 4)
        let source = picture.pixels
        for by in 0..<h {
            let y0 = by * factor, y1 = min(height, y0 + factor)
            for bx in 0..<w {
                let x0 = bx * factor, x1 = min(width, x0 + factor)
                var r = 0, g = 0, b = 0
                for y in y0..<y1 {
                    var i = (y * width + x0) * 4
                    for _ in x0..<x1 {
                        r += Int(source[i]); g += Int(source[i + 1]); b += Int(source[i + 2])
                        i += 4
                    }
                }
                let count = (y1 - y0) * (x1 - x0), o = (by * w + bx) * 4
                out[o] = UInt8((r + count / 2) / count)
                out[o + 1] = UInt8((g + count / 2) / count)
                out[o + 2] = UInt8((b + count / 2) / count)
            }
        }
        return RGBAImage(width: w, height: h, pixels: out)
    }

    static func referenceFillSource(_ picture: RGBAImage, width: Int, height: Int) -> RGBAImage {
        let small = referenceBoxReduced(picture, by: max(1, max(picture.width, picture.height) / 32))
        // The crop is the same rule before and after (`fillCrop`); the reduction is what changed.
        let crop = RoomPicture.fillCrop(reducedWidth: small.width, reducedHeight: small.height, width: width, height: height)
        let (cropWidth, cropHeight) = (crop.width, crop.height)
        var fill = small.cropped(x: crop.x, y: crop.y, width: cropWidth, height: cropHeight)
        fill = fill.blurred(radius: max(1, min(cropWidth, cropHeight) / 6))
        fill.darken(by: RoomPicture.fillBrightness)
        return fill
    }

    static func referenceUpscale(_ picture: RGBAImage, width: Int, height: Int, outside hole: (x: Int, y: Int, width: Int, height: Int),
                                 into target: inout RGBAImage, at origin: (x: Int, y: Int)) {
        let sampler = BilinearSampler(texture: picture)
        let holeRows = hole.y..<(hole.y + hole.height)
        let left = 0..<min(width, max(0, hole.x)), right = min(width, max(0, hole.x + hole.width))..<width
        let stride = target.width
        picture.pixels.withUnsafeBufferPointer { source in
            let base = UnsafeRawPointer(source.baseAddress!)
            target.pixels.withUnsafeMutableBytes { target in
                for y in 0..<height {
                    let v = (Float(y) + 0.5) / Float(height)
                    let row = (origin.y + y) * stride + origin.x
                    for columns in holeRows.contains(y) ? [left, right] : [0..<width] {
                        for x in columns {
                            let value = sampler.sample(base, u: (Float(x) + 0.5) / Float(width), v: v)
                            target.storeBytes(of: BilinearSampler.pack(value), toByteOffset: (row + x) * 4, as: UInt32.self)
                        }
                    }
                }
            }
        }
    }
}
