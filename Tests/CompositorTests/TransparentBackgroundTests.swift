import Compositor
import XCTest

/// A background that is not opaque (`"transparent"`, `"#RRGGBBAA"`) keeps its alpha around the
/// faces, and face edges, overlays and the bubble blend into it in straight alpha
/// (issue "What a new user ran into", item 7).
final class TransparentBackgroundTests: XCTestCase {
    let red = RGBAColor(red: 255, green: 0, blue: 0)
    let loops: [Rasterizer.InnerLoop] = [.scalarReference, .portableVector, .vector]

    // MARK: - Colours

    func testColoursParseAsCSSWritesThem() {
        XCTAssertEqual(RGBAColor(parsing: "#abc"), RGBAColor(red: 0xaa, green: 0xbb, blue: 0xcc))
        XCTAssertEqual(RGBAColor(parsing: "#F80"), RGBAColor(red: 0xff, green: 0x88, blue: 0x00))
        XCTAssertEqual(RGBAColor(parsing: "#f808"), RGBAColor(red: 0xff, green: 0x88, blue: 0x00, alpha: 0x88))
        XCTAssertEqual(RGBAColor(parsing: "#1a2B3c"), RGBAColor(red: 0x1a, green: 0x2b, blue: 0x3c))
        XCTAssertEqual(RGBAColor(parsing: "#1a2b3c80"), RGBAColor(red: 0x1a, green: 0x2b, blue: 0x3c, alpha: 0x80))
        XCTAssertEqual(RGBAColor(parsing: "transparent"), RGBAColor(red: 0, green: 0, blue: 0, alpha: 0))
        XCTAssertEqual(RGBAColor(parsing: "Transparent"), .transparent)
        for bad in ["", "#", "#12", "#12345", "#1234567", "#123456789", "#12345g", "#+12345", "#-1234", "123456", "red", " #123"] {
            XCTAssertNil(RGBAColor(parsing: bad), bad)
        }
    }

    // MARK: - Face edges

    /// A page alone whose right edge crosses the middle of column 74: that pixel is half covered.
    /// Over a transparent background it is the face's red, half transparent, not a dark red.
    func testAHalfCoveredEdgeIsTheFaceColourAtHalfAlpha() {
        let (width, height) = (100, 8)
        for loop in loops {
            let image = drawFirstPageAlone(over: .transparent, loop: loop, width: width, height: height)
            let edge = image[74, 4]
            XCTAssertEqual(edge.alpha, 128, "\(loop)")
            XCTAssertEqual(edge.distance(to: RGBAColor(red: 255, green: 0, blue: 0, alpha: 128)), 0, "\(loop): \(edge)")
            XCTAssertEqual(image[73, 4], red, "\(loop): inside the face")
            XCTAssertEqual(image[75, 4], .transparent, "\(loop): the background beyond it")
        }
    }

    /// Over a half-transparent blue, the edge is red "over" blue in straight alpha:
    /// out.a = a_s + a_d(1 − a_s), out.rgb = (rgb_s·a_s + rgb_d·a_d(1 − a_s)) / out.a.
    func testAnEdgeOverAPartlyTransparentBackgroundIsOver() {
        let background = RGBAColor(red: 0, green: 0, blue: 255, alpha: 0x80)
        let source = 0.5, under = Double(background.alpha) / 255
        let alpha = source + under * (1 - source)
        let expected = RGBAColor(red: UInt8((255 * source / alpha).rounded()), green: 0,
                                 blue: UInt8((255 * under * (1 - source) / alpha).rounded()),
                                 alpha: UInt8((alpha * 255).rounded()))
        for loop in loops {
            let image = drawFirstPageAlone(over: background, loop: loop, width: 100, height: 8)
            XCTAssertLessThanOrEqual(image[74, 4].distance(to: expected), 1, "\(loop): \(image[74, 4]), expected \(expected)")
            XCTAssertEqual(image[90, 4], background, "\(loop): the background keeps its alpha")
        }
    }

    /// Mid-turn over a transparent background: the area around the cube stays transparent, the
    /// faces are opaque, shading darkens their colour and not their alpha, and where the two
    /// faces meet no background seam shows through.
    func testTheCubeMidTurnIsOpaqueAndTransparentAroundIt() {
        let (width, height) = (180, 320)
        let white = RGBAImage(width: width, height: height, fill: .white)
        let transition = PageTransition(style: .cube, shading: 0.35)
        let faces = transition.faces(pageOffset: 0.5, width: width, height: height).map {
            TexturedFace(texture: white, placement: $0)
        }
        for loop in loops {
            var image = RGBAImage(width: width, height: height)
            Rasterizer(threads: 2, innerLoop: loop).draw(faces, background: .transparent, into: &image)
            XCTAssertEqual(image[1, 1], .transparent, "\(loop): above the receding faces")
            XCTAssertEqual(image[width - 2, height - 2], .transparent, "\(loop): below them")
            let shaded = UInt8((255 * (1 - 0.35 * sin(Double.pi / 4))).rounded())
            XCTAssertLessThanOrEqual(image[60, height / 2].distance(to: RGBAColor(red: shaded, green: shaded, blue: shaded)), 1,
                                     "\(loop): a shaded face is darker and opaque: \(image[60, height / 2])")
            let hinge = width / 2
            for y in stride(from: 40, to: height - 40, by: 7) {
                for x in (hinge - 1)...(hinge + 1) {
                    XCTAssertGreaterThanOrEqual(image[x, y].alpha, 254, "\(loop): seam at (\(x), \(y))")
                }
            }
            let partial = (0..<40).flatMap { y in (90..<180).map { image[$0, y] } }.filter { $0.alpha > 10 && $0.alpha < 245 }
            XCTAssertGreaterThan(partial.count, 20, "\(loop): the receding edges are anti-aliased in alpha")
            XCTAssertTrue(partial.allSatisfy { $0.red >= shaded - 2 }, "\(loop): edge colour is the face's, not darkened by the background")
        }
    }

    /// The scalar reference, the Swift vector loop and the C span kernel agree over a background
    /// that is not opaque, as they do over an opaque one.
    func testEveryRasterPathAgreesOverATransparentBackground() {
        let (width, height) = (108, 192)
        var textures: [RGBAImage] = []
        for blue: UInt8 in [40, 210] {
            var ramp = RGBAImage(width: width, height: height)
            for y in 0..<height {
                for x in 0..<width {
                    ramp[x, y] = RGBAColor(red: UInt8(x * 255 / (width - 1)), green: UInt8(y * 255 / (height - 1)), blue: blue)
                }
            }
            textures.append(ramp)
        }
        for background in [RGBAColor.transparent, RGBAColor(red: 12, green: 200, blue: 30, alpha: 0x60)] {
            for transition in [PageTransition(style: .cube, shading: 0.35), PageTransition(style: .slide), PageTransition(style: .cube, axis: .vertical)] {
                for p in [0.13, 0.61] {
                    let faces = transition.faces(pageOffset: p, width: width, height: height).map {
                        TexturedFace(texture: textures[$0.page], placement: $0)
                    }
                    var reference = RGBAImage(width: width, height: height)
                    Rasterizer(threads: 1, innerLoop: .scalarReference).draw(faces, background: background, into: &reference)
                    for loop in [Rasterizer.InnerLoop.vector, .portableVector] {
                        var fast = RGBAImage(width: width, height: height)
                        Rasterizer(threads: 2, innerLoop: loop).draw(faces, background: background, into: &fast)
                        var worst = 0
                        for y in 0..<height { for x in 0..<width { worst = max(worst, fast[x, y].distance(to: reference[x, y])) } }
                        XCTAssertLessThanOrEqual(worst, 1, "\(loop): \(transition.style) \(transition.axis) at \(p) over \(background)")
                    }
                }
            }
        }
    }

    // MARK: - Overlays and the bubble

    /// A half-transparent white bar over a transparent picture is white at half alpha; it used
    /// to mix its colour into the invisible pixel and leave the alpha at 0.
    func testOverlayShapesGoOverTransparentPixels() {
        var picture = RGBAImage(width: 20, height: 10, fill: .transparent)
        picture.fillRoundedRect(x: 0, y: 0, width: 20, height: 5, radius: 0, color: RGBAColor(red: 255, green: 255, blue: 255, alpha: 128))
        XCTAssertEqual(picture[10, 2], RGBAColor(red: 255, green: 255, blue: 255, alpha: 128))
        XCTAssertEqual(picture[10, 7], .transparent)
        // Over an opaque pixel, as before.
        var opaque = RGBAImage(width: 20, height: 10, fill: .black)
        opaque.fillRoundedRect(x: 0, y: 0, width: 20, height: 5, radius: 0, color: RGBAColor(red: 255, green: 255, blue: 255, alpha: 128))
        XCTAssertEqual(opaque[10, 2], RGBAColor(red: 128, green: 128, blue: 128))
    }

    /// The viewer opening from its bubble over a transparent background: outside the circle the
    /// frame is transparent, and the circle's anti-aliased rim is the frame's colour at partial
    /// alpha.
    func testTheBubbleOpensOverATransparentBackground() {
        let frame = RGBAImage(width: 90, height: 160, fill: red)
        let bubble = BubbleTransform.opening(from: (x: 0.5, y: 0.5, r: 0.2), progress: 0.3, width: 90, height: 160)
        for corner in [0.0, 6.0] {
            var transform = bubble
            transform.cornerRadius = corner
            let shown = frame.presented(transform, background: .transparent)
            XCTAssertEqual(shown[1, 1], .transparent, "corner radius \(corner)")
            XCTAssertEqual(shown[45, 80], red, "corner radius \(corner)")
            let rim = (0..<160).flatMap { y in (0..<90).map { shown[$0, y] } }.filter { $0.alpha > 0 && $0.alpha < 255 }
            XCTAssertFalse(rim.isEmpty, "corner radius \(corner)")
            XCTAssertTrue(rim.allSatisfy { $0.red >= 254 && $0.green == 0 }, "corner radius \(corner): \(rim.prefix(3))")
        }
    }

    // MARK: - Helpers

    // MARK: - Translucent faces (an overlay-only render's)

    /// A face whose picture is half transparent keeps that alpha inside, halves it again at a
    /// half-covered edge, leaves its clear texels clear, and shading darkens its colour only.
    func testATranslucentFaceIsDrawnOverTheCanvas() {
        let (width, height) = (100, 8)
        var texture = RGBAImage(width: width, height: height, fill: RGBAColor(red: 255, green: 0, blue: 0, alpha: 128))
        for x in 0..<40 { for y in 0..<height { texture[x, y] = .transparent } }
        let placement = PageTransition(style: .slide).faces(pageOffset: 0.255, width: width, height: height)[0]
        for loop in loops {
            var image = RGBAImage(width: width, height: height)
            Rasterizer(threads: 1, innerLoop: loop).draw([TexturedFace(texture: texture, placement: placement, isTranslucent: true)],
                                                         background: .transparent, into: &image)
            XCTAssertEqual(image[60, 4], RGBAColor(red: 255, green: 0, blue: 0, alpha: 128), "\(loop): inside, the texel's alpha")
            XCTAssertEqual(image[74, 4].alpha, 64, accuracy: 1, "\(loop): half covered, half the alpha")
            XCTAssertEqual(image[74, 4].red, 255, "\(loop): and the same colour")
            XCTAssertEqual(image[5, 4], .transparent, "\(loop): the clear texels stay clear")
            XCTAssertEqual(image[90, 4], .transparent, "\(loop): beyond the face")
        }
        // Mid-turn on a cube, the face turning away is shaded.
        let turned = PageTransition(style: .cube).faces(pageOffset: 0.5, width: 100, height: 100)[0]
        XCTAssertLessThan(turned.brightness, 0.95)
        let centre = turned.corners.reduce(SIMD2<Double>(0, 0), +) / 4
        var image = RGBAImage(width: 100, height: 100)
        let opaqueRight = RGBAImage(width: 100, height: 100, fill: RGBAColor(red: 255, green: 0, blue: 0, alpha: 128))
        Rasterizer(threads: 1).draw([TexturedFace(texture: opaqueRight, placement: turned, isTranslucent: true)], background: .transparent, into: &image)
        let inside = image[Int(centre.x), Int(centre.y)]
        XCTAssertEqual(Int(inside.alpha), 128, accuracy: 1, "shading keeps the alpha")
        XCTAssertEqual(Double(inside.red), 255 * turned.brightness, accuracy: 2, "and darkens the colour")
    }

    /// Two translucent faces mid-turn, their pictures opaque here: where they meet at the
    /// cube's edge their shares add up, so the seam is as opaque as either side ("over" of each
    /// would leave a lighter line, 0.75 at an even split).
    func testTranslucentFacesLeaveNoSeamWhereTheyMeet() {
        let (width, height) = (100, 60)
        let texture = RGBAImage(width: width, height: height, fill: RGBAColor(red: 255, green: 255, blue: 255))
        // Offsets whose hinge falls between pixel centres, so both faces share its pixels.
        for offset in [0.333, 0.414, 0.571] {
            let faces = PageTransition(style: .cube).faces(pageOffset: offset, width: width, height: height).map {
                TexturedFace(texture: texture, placement: $0, isTranslucent: true)
            }
            XCTAssertEqual(faces.count, 2)
            var image = RGBAImage(width: width, height: height)
            Rasterizer(threads: 1).draw(faces, background: .transparent, into: &image)
            let seam = (1..<(width - 1)).map { image[$0, height / 2].alpha }
            XCTAssertGreaterThanOrEqual(seam.min() ?? 0, 254, "offset \(offset): every pixel across the middle row, the hinge's among them: \(seam)")
        }
    }

    /// At rest, pixel for pixel, the face's picture is the frame, over transparency.
    func testATranslucentFaceAtRestIsItsPicture() {
        var texture = RGBAImage(width: 20, height: 30, fill: .transparent)
        texture[3, 4] = RGBAColor(red: 10, green: 200, blue: 30, alpha: 77)
        let placement = PageTransition(style: .cube).faces(pageOffset: 0, width: 20, height: 30)[0]
        var image = RGBAImage(width: 20, height: 30)
        Rasterizer(threads: 1).draw([TexturedFace(texture: texture, placement: placement, isTranslucent: true)], background: .transparent, into: &image)
        XCTAssertEqual(image, texture)
    }

    private func drawFirstPageAlone(over background: RGBAColor, loop: Rasterizer.InnerLoop, width: Int, height: Int) -> RGBAImage {
        // Slid left by 0.255 of a page, page 0's right edge is at x = 74.5, the centre of column 74.
        let placement = PageTransition(style: .slide).faces(pageOffset: 0.255, width: width, height: height)[0]
        let face = TexturedFace(texture: RGBAImage(width: width, height: height, fill: red), placement: placement)
        var image = RGBAImage(width: width, height: height)
        Rasterizer(threads: 1, innerLoop: loop).draw([face], background: background, into: &image)
        return image
    }
}
