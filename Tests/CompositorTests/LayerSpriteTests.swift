import Compositor
import XCTest

/// Drawing a layer's sprite at a pose: where it lands, its edges, and poses off the picture.
final class LayerSpriteTests: XCTestCase {
    static let red = RGBAColor(red: 255, green: 0, blue: 0)

    func testASpriteOffThePictureDrawsNothingAndDoesNotTrap() {
        let sprite = LayerSprite(RGBAImage(width: 20, height: 10, fill: Self.red))
        var picture = RGBAImage(width: 40, height: 40, fill: .black)
        let before = picture
        for (x, y) in [(-30.0, 20.0), (90, 20), (20, -50), (20, 400), (-1e9, 1e9)] {
            let touched = picture.draw(sprite, at: SpritePlacement(centreX: x, centreY: y))
            XCTAssertTrue(touched.x.isEmpty || touched.y.isEmpty, "(\(x), \(y))")
        }
        XCTAssertEqual(picture, before)
    }

    func testASpriteHalfOffThePictureIsCutAtItsEdge() {
        let sprite = LayerSprite(RGBAImage(width: 20, height: 10, fill: Self.red))
        var picture = RGBAImage(width: 40, height: 40, fill: .black)
        picture.draw(sprite, at: SpritePlacement(centreX: 0, centreY: 20))
        XCTAssertEqual(picture[5, 20], Self.red, "the right half, inside")
        XCTAssertEqual(picture[15, 20], .black, "nothing past its edge")
    }

    /// Straight-alpha input, premultiplied sampling: a quarter turn of a 2:1 bar swaps its sides,
    /// and half opacity over black gives half the colour.
    func testTurnedAndHalfSeen() {
        let sprite = LayerSprite(RGBAImage(width: 20, height: 10, fill: Self.red))
        var picture = RGBAImage(width: 40, height: 40, fill: .black)
        picture.draw(sprite, at: SpritePlacement(centreX: 20, centreY: 20, degrees: 90, opacity: 0.5))
        XCTAssertEqual(picture[20, 12].red, 128, accuracy: 1, "inside the turned bar, 8 above its centre")
        XCTAssertEqual(picture[12, 20], .black, "8 to its side is outside it now")
    }

    /// A spring overshoots: an opacity past 1 reaching the blend must not wrap a byte (it trapped).
    func testAnOpacityPastOneDrawsOpaqueInsteadOfTrapping() {
        let sprite = LayerSprite(RGBAImage(width: 10, height: 10, fill: .black))
        var picture = RGBAImage(width: 20, height: 20, fill: .white)
        picture.draw(sprite, at: SpritePlacement(centreX: 10, centreY: 10, opacity: 1.2))
        picture.draw(sprite, at: SpritePlacement(centreX: 10, centreY: 10, degrees: 10, opacity: 1.2))
        XCTAssertEqual(picture[10, 10], .black)
    }
}
