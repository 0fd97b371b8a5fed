import Compositor
import Foundation
import XCTest

final class RasterizerTests: XCTestCase {
    let red = RGBAColor(red: 255, green: 0, blue: 0)
    let blue = RGBAColor(red: 0, green: 0, blue: 255)
    let grey = RGBAColor(red: 40, green: 40, blue: 40)

    // MARK: - Perspective

    /// The texel at u = 0.5 lands where the projection puts it, not halfway between the face's
    /// edges, which is where affine interpolation would put it.
    func testTextureMappingIsPerspectiveCorrect() {
        let width = 360, height = 640
        let texture = TestPictures.centreLine(width: width, height: height)
        let transition = PageTransition(style: .cube, perspective: 2.6667, shading: 0)
        let image = TestPictures.render(transition, pageOffset: 0.5, textures: [texture, RGBAImage(width: width, height: height)],
                                        width: width, height: height)
        let face = transition.faces(pageOffset: 0.5, width: width, height: height)[0]
        let y = height / 2
        let projected = face.project(u: 0.5, v: 0.5)!.x
        let affine = (face.project(u: 0, v: 0.5)!.x + face.project(u: 1, v: 0.5)!.x) / 2
        XCTAssertGreaterThan(abs(projected - affine), 4, "the test needs the two predictions to differ")
        // Where the red line actually is: the centre of the reddest pixels in the row.
        let redColumns = (0..<width).filter { image[$0, y].red > 200 && image[$0, y].green < 80 }
        XCTAssertFalse(redColumns.isEmpty)
        let found = Double(redColumns.reduce(0, +)) / Double(redColumns.count) + 0.5
        XCTAssertEqual(found, projected, accuracy: 1.0)
        XCTAssertGreaterThan(abs(found - affine), 3)
    }

    // MARK: - Cube pixels

    func testCubeFacesCoverWhatTheFormulaSaysAndTheBackgroundShowsElsewhere() {
        let width = 180, height = 320
        let transition = PageTransition(style: .cube, shading: 0)
        let textures = [TestPictures.solid(.white, width: width, height: height), TestPictures.solid(blue, width: width, height: height)]
        for f in [0.25, 0.5, 0.75] {
            let image = TestPictures.render(transition, pageOffset: f, textures: textures, width: width, height: height, background: grey)
            let faces = transition.faces(pageOffset: f, width: width, height: height)
            // A point on the right face's receding top edge: face below it, background above.
            let top = faces[1].project(u: 0.5, v: 0)!
            XCTAssertGreaterThan(top.y, 4, "the top edge recedes, f = \(f)")
            XCTAssertEqual(image[Int(top.x), Int(top.y) + 3], blue, "inside below the right face's top edge, f = \(f)")
            XCTAssertEqual(image[Int(top.x), Int(top.y) - 3], grey, "background above the right face, f = \(f)")
            let bottom = faces[1].project(u: 0.5, v: 1)!
            XCTAssertEqual(image[Int(bottom.x), Int(bottom.y) - 3], blue, "inside above the bottom edge, f = \(f)")
            XCTAssertEqual(image[Int(bottom.x), Int(bottom.y) + 3], grey, "background below the bottom edge, f = \(f)")
            let far = faces[1].project(u: 1, v: 0.5)!
            if far.x + 3 < Double(width) {
                XCTAssertEqual(image[Int(far.x) + 3, height / 2], grey, "background beyond the right face, f = \(f)")
                XCTAssertEqual(image[Int(far.x) - 3, height / 2], blue, "right face before its far edge, f = \(f)")
            }
            let hinge = Int(faces[0].project(u: 1, v: 0.5)!.x)
            XCTAssertEqual(image[max(0, hinge - 3), height / 2], .white, "left face left of the hinge, f = \(f)")
            XCTAssertEqual(image[min(width - 1, hinge + 3), height / 2], blue, "right face right of the hinge, f = \(f)")
        }
    }

    func testEdgesAreAntiAliased() {
        let width = 180, height = 320
        let image = TestPictures.render(PageTransition(shading: 0), pageOffset: 0.5,
                                        textures: [TestPictures.solid(.white, width: width, height: height), TestPictures.solid(.white, width: width, height: height)],
                                        width: width, height: height)
        // Down the slanted top edge of the right face, some pixels are partly covered.
        let partial = (0..<40).flatMap { y in (90..<180).map { image[$0, y].red } }.filter { $0 > 10 && $0 < 245 }
        XCTAssertGreaterThan(partial.count, 20)
    }

    func testNoBackgroundSeamAtTheHinge() {
        let width = 180, height = 320
        let white = TestPictures.solid(.white, width: width, height: height)
        for f in [0.3, 0.5, 0.77] {
            let image = TestPictures.render(PageTransition(shading: 0), pageOffset: f, textures: [white, white],
                                            width: width, height: height)
            let hinge = Int(Double(width) * (1 - f))
            for y in stride(from: 40, to: height - 40, by: 7) {
                for x in (hinge - 1)...(hinge + 1) {
                    XCTAssertGreaterThanOrEqual(image[x, y].red, 254, "seam at (\(x), \(y)), f = \(f)")
                }
            }
        }
    }

    func testShadingDarkensTheTurnedFace() {
        let width = 180, height = 320
        let white = TestPictures.solid(.white, width: width, height: height)
        let image = TestPictures.render(PageTransition(shading: 0.35), pageOffset: 0.5, textures: [white, white],
                                        width: width, height: height)
        let expected = 255 * (1 - 0.35 * sin(Double.pi / 4))
        XCTAssertEqual(Double(image[60, height / 2].red), expected, accuracy: 1)
    }

    // MARK: - Slide and cut

    func testSlidePutsPagesSideBySide() {
        let width = 100, height = 40
        let a = TestPictures.ramp(width: width, height: height)
        let b = TestPictures.solid(blue, width: width, height: height)
        let image = TestPictures.render(PageTransition(style: .slide), pageOffset: 0.25, textures: [a, b], width: width, height: height)
        // Story 0 moved left by a quarter page: screen column x shows its texel x + 25.
        for x in [0, 10, 40, 74] {
            XCTAssertEqual(image[x, 20], a[x + 25, 20], "column \(x)")
        }
        XCTAssertEqual(image[75, 20], blue)
        XCTAssertEqual(image[99, 20], blue)
    }

    func testCutShowsOnlyTheNearestPage() {
        let width = 60, height = 40
        let textures = [TestPictures.solid(red, width: width, height: height), TestPictures.solid(blue, width: width, height: height)]
        let early = TestPictures.render(PageTransition(style: .cut), pageOffset: 0.4, textures: textures, width: width, height: height)
        let late = TestPictures.render(PageTransition(style: .cut), pageOffset: 0.6, textures: textures, width: width, height: height)
        XCTAssertEqual(Set(stride(from: 0, to: early.pixels.count, by: 4).map { early.pixels[$0 + 2] }), [0])
        XCTAssertEqual(Set(stride(from: 0, to: late.pixels.count, by: 4).map { late.pixels[$0] }), [0])
    }

    // MARK: - Vertical axis

    /// A vertical render equals the horizontal render of the transposed scene, transposed back,
    /// seen from the same eye: the transposed canvas is `height` wide, so its perspective is
    /// scaled by width / height to keep D = perspective × the real canvas width.
    func testVerticalIsTheTransposedHorizontal() {
        let width = 90, height = 160
        let a = TestPictures.ramp(width: width, height: height, blue: 30)
        let b = TestPictures.ramp(width: width, height: height, blue: 220)
        for style in [TransitionStyle.cube, .slide] {
            for p in [0.3, 0.5, 0.8] {
                let vertical = TestPictures.render(PageTransition(style: style, axis: .vertical), pageOffset: p,
                                                   textures: [a, b], width: width, height: height)
                let sameEye = PageTransition().perspective * Double(width) / Double(height)
                let horizontal = TestPictures.render(PageTransition(style: style, axis: .horizontal, perspective: sameEye), pageOffset: p,
                                                     textures: [a.transposed(), b.transposed()], width: height, height: width)
                let back = horizontal.transposed()
                var worst = 0
                for y in 0..<height { for x in 0..<width { worst = max(worst, vertical[x, y].distance(to: back[x, y])) } }
                XCTAssertLessThanOrEqual(worst, 1, "\(style) at p = \(p)")
            }
        }
        // And the next story comes from below: the bottom rows show story 1 mid-swipe.
        let mid = TestPictures.render(PageTransition(style: .slide, axis: .vertical), pageOffset: 0.5,
                                      textures: [TestPictures.solid(red, width: width, height: height), TestPictures.solid(blue, width: width, height: height)],
                                      width: width, height: height)
        XCTAssertEqual(mid[45, 10], red)
        XCTAssertEqual(mid[45, 150], blue)
    }

    // MARK: - Threads

    /// The rows split across threads in bands; the bands must not change a pixel.
    func testThreadCountDoesNotChangeTheImage() {
        for (width, height, blue, pageOffset, threads) in [(120, 200, 200, 0.37, 4), (200, 356, 99, 0.61, 5)] {
            let textures = [TestPictures.ramp(width: width, height: height),
                            TestPictures.ramp(width: width, height: height, blue: UInt8(blue))]
            let one = TestPictures.render(PageTransition(), pageOffset: pageOffset, textures: textures,
                                          width: width, height: height, threads: 1)
            let many = TestPictures.render(PageTransition(), pageOffset: pageOffset, textures: textures,
                                           width: width, height: height, threads: threads)
            XCTAssertEqual(one, many, "\(width)x\(height) at \(pageOffset) on \(threads) threads")
        }
    }
}

/// The SIMD inner loop against the one-pixel-at-a-time reference.
final class VectorPathTests: XCTestCase {
    func testVectorPathMatchesTheScalarReferenceWithinOneLevel() {
        let width = 216, height = 384
        let textures = [TestPictures.ramp(width: width, height: height, blue: 40),
                        TestPictures.ramp(width: width, height: height, blue: 210)]
        for transition in [PageTransition(style: .cube, shading: 0.35), PageTransition(style: .slide),
                           PageTransition(style: .cube, axis: .vertical)] {
            for p in [0.0, 0.13, 0.3, 0.5, 0.91] {
                let faces = transition.faces(pageOffset: p, width: width, height: height).map {
                    TexturedFace(texture: textures[$0.page], placement: $0)
                }
                var reference = RGBAImage(width: width, height: height)
                let background = RGBAColor(red: 12, green: 200, blue: 30)
                Rasterizer(threads: 1, innerLoop: .scalarReference).draw(faces, background: background, into: &reference)
                // `vector` runs the C span kernel on this CPU if it has AVX2; `portableVector` is
                // the Swift loop other CPUs run.
                for loop in [Rasterizer.InnerLoop.vector, .portableVector] {
                    var fast = RGBAImage(width: width, height: height)
                    Rasterizer(threads: 2, innerLoop: loop).draw(faces, background: background, into: &fast)
                    var worst = 0, differing = 0
                    for y in 0..<height {
                        for x in 0..<width {
                            let d = fast[x, y].distance(to: reference[x, y])
                            worst = max(worst, d)
                            if d > 0 { differing += 1 }
                        }
                    }
                    let label = "\(loop): \(transition.style) \(transition.axis) at p = \(p)"
                    XCTAssertLessThanOrEqual(worst, 1, label)
                    XCTAssertLessThan(differing, width * height / 20, "nearly all pixels are identical (\(label))")
                }
            }
        }
    }
}
