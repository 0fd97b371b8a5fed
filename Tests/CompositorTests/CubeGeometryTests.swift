import Compositor
import Foundation
import XCTest

/// The cube faces against the formula, computed here independently of the library.
final class CubeGeometryTests: XCTestCase {
    let width = 720.0, height = 1280.0, perspective = 2.6667

    /// The formula: rotate local (x, y) by a about the hinge, project with w = 1 + z'/D.
    func formula(u: Double, v: Double, f: Double, left: Bool) -> SIMD2<Double> {
        let d = perspective * width
        let hinge = width * (1 - f)
        let a = left ? (Double.pi / 2) * f : -(Double.pi / 2) * (1 - f)
        let x = left ? (u - 1) * width : u * width
        let y = (v - 0.5) * height
        let xr = x * cos(a), z = -x * sin(a)
        let w = 1 + z / d
        return SIMD2(hinge + xr / w, height / 2 + y / w)
    }

    func testCornersMatchTheFormulaAtQuarterHalfAndThreeQuarters() {
        let transition = PageTransition(style: .cube, perspective: perspective)
        for f in [0.25, 0.5, 0.75] {
            let faces = transition.faces(pageOffset: 2 + f, width: Int(width), height: Int(height))
            XCTAssertEqual(faces.map(\.page), [2, 3], "f = \(f)")
            for (face, left) in zip(faces, [true, false]) {
                let corners = face.corners
                let expected = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)].map { formula(u: $0.0, v: $0.1, f: f, left: left) }
                XCTAssertEqual(corners.count, 4)
                for (got, want) in zip(corners, expected) {
                    XCTAssertEqual(got.x, want.x, accuracy: 1e-6, "f = \(f), left = \(left)")
                    XCTAssertEqual(got.y, want.y, accuracy: 1e-6, "f = \(f), left = \(left)")
                }
            }
        }
    }

    func testHingeIsTheSharedEdgeAndFacesRecede() {
        let faces = PageTransition().faces(pageOffset: 0.5, width: 720, height: 1280)
        // The left face's right edge and the right face's left edge are the hinge, full height.
        XCTAssertEqual(faces[0].corners[1].x, 360, accuracy: 1e-9)
        XCTAssertEqual(faces[1].corners[0].x, 360, accuracy: 1e-9)
        XCTAssertEqual(faces[0].corners[1].y, 0, accuracy: 1e-9)
        XCTAssertEqual(faces[0].corners[2].y, 1280, accuracy: 1e-9)
        // The far edges are shorter than the screen: they are further away.
        XCTAssertGreaterThan(faces[0].corners[0].y, 0)
        XCTAssertLessThan(faces[1].corners[2].y, 1280)
    }

    func testShadingDarkensBySineOfTheAngle() {
        let faces = PageTransition(shading: 0.35).faces(pageOffset: 0.5, width: 720, height: 1280)
        XCTAssertEqual(faces[0].brightness, 1 - 0.35 * sin(Double.pi / 4), accuracy: 1e-12)
        let flat = PageTransition(shading: 0).faces(pageOffset: 0.5, width: 720, height: 1280)
        XCTAssertEqual(flat[0].brightness, 1)
    }

    func testRestingPageShowsOneFlatFace() {
        let faces = PageTransition().faces(pageOffset: 1, width: 720, height: 1280)
        XCTAssertEqual(faces.count, 1)
        XCTAssertEqual(faces[0].page, 1)
        XCTAssertEqual(faces[0].corners[0], SIMD2(0, 0))
        XCTAssertEqual(faces[0].corners[2], SIMD2(720, 1280))
    }

    func testVisiblePagesPerStyle() {
        XCTAssertEqual(PageTransition(style: .cube).visiblePages(pageOffset: 0.3), [0, 1])
        XCTAssertEqual(PageTransition(style: .slide).visiblePages(pageOffset: 1.0), [1])
        XCTAssertEqual(PageTransition(style: .cut).visiblePages(pageOffset: 0.4), [0])
        XCTAssertEqual(PageTransition(style: .cut).visiblePages(pageOffset: 0.6), [1])
    }

    /// The vertical cube keeps the horizontal one's perspective distance, D = perspective ×
    /// canvas width: the top face's far edge at half a turn lands where the seed's transform puts
    /// it (it used D = perspective × height, which made the vertical turn flatter).
    func testTheVerticalCubeUsesTheWidthForItsPerspective() throws {
        let geometry = PageTransition(style: .cube, axis: .vertical, perspective: 2.6667)
        let top = try XCTUnwrap(geometry.faces(pageOffset: 0.5, width: 720, height: 1280).first { $0.page == 0 })
        let d = 2.6667 * 720, a = Double.pi / 4, length = 1280.0
        let depth = 1 + length * sin(a) / d
        let expected = 1280 * 0.5 - length * cos(a) / depth
        let farEdge = try XCTUnwrap(top.project(u: 0.5, v: 0))
        XCTAssertEqual(farEdge.y, expected, accuracy: 0.5)
        XCTAssertEqual(geometry.distance(720), d, accuracy: 1e-9)
    }
}
