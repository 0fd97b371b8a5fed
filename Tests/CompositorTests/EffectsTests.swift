import Compositor
import XCTest

/// The loading look's picture effects, checked against numbers rather than against themselves.
final class EffectsTests: XCTestCase {
    func testDarkenMultipliesEachChannel() {
        var picture = RGBAImage(width: 4, height: 4, fill: RGBAColor(red: 200, green: 100, blue: 50))
        picture.darken(by: 0.5)
        XCTAssertEqual(picture[1, 1], RGBAColor(red: 100, green: 50, blue: 25))
    }

    func testBlurSpreadsAnEdgeAndKeepsFlatAreas() {
        var picture = RGBAImage(width: 40, height: 8, fill: .black)
        for y in 0..<8 { for x in 20..<40 { picture[x, y] = .white } }
        let blurred = picture.blurred(radius: 3)
        XCTAssertEqual(blurred[0, 4], .black, "far from the edge: unchanged")
        XCTAssertEqual(blurred[39, 4], .white)
        XCTAssertEqual(Double(blurred[20, 4].red), 127.5, accuracy: 40, "at the edge: about half")
        XCTAssertGreaterThan(blurred[17, 4].red, 0, "the edge spreads")
        XCTAssertLessThan(blurred[17, 4].red, blurred[19, 4].red)
    }

    func testCrossfadeMidpoint() {
        let a = RGBAImage(width: 2, height: 2, fill: RGBAColor(red: 0, green: 100, blue: 200))
        let b = RGBAImage(width: 2, height: 2, fill: RGBAColor(red: 200, green: 100, blue: 0))
        XCTAssertEqual(a.crossfaded(to: b, amount: 0.5)[0, 0], RGBAColor(red: 100, green: 100, blue: 100))
        XCTAssertEqual(a.crossfaded(to: b, amount: 0)[0, 0], a[0, 0])
    }

    func testScaledKeepsCornersAndMiddle() {
        let small = RGBAImage(width: 2, height: 2, fill: RGBAColor(red: 10, green: 20, blue: 30))
        let big = small.scaled(width: 9, height: 7)
        XCTAssertEqual(big.width, 9)
        XCTAssertEqual(big[8, 6], small[1, 1])
    }

    func testRoundedRectIsAntiAliasedAndFilled() {
        var picture = RGBAImage(width: 40, height: 20, fill: .black)
        picture.fillRoundedRect(x: 5, y: 5, width: 30, height: 10, radius: 5, color: .white)
        XCTAssertEqual(picture[20, 10], .white)
        XCTAssertEqual(picture[1, 1], .black)
        XCTAssertEqual(picture[5, 5], .black, "the rounded corner leaves the box corner out")
        let rim = picture[20, 4].red
        XCTAssertEqual(rim, 0, "above the top edge")
        XCTAssertGreaterThan(picture[6, 9].red, 0)
    }

    /// The overlay's scrim draws rows with `blendRow` (a table per channel) where it used a
    /// one-row rectangle: the pixels must be the same, over opaque rows and rows that are not
    /// (noisyBands leaves every fifth row's alpha noisy).
    func testBlendRowIsTheOneRowRectangle() {
        let picture = TestPictures.noisyBands(width: 37, height: 12)
        let colors = [RGBAColor(red: 0, green: 0, blue: 0, alpha: 97), RGBAColor(red: 200, green: 30, blue: 255, alpha: 40),
                      RGBAColor(red: 12, green: 12, blue: 90, alpha: 255)]
        for color in colors {
            for row in [0, 3, 5, 11] {
                var byRectangle = picture
                byRectangle.fillRoundedRect(x: 0, y: Double(row), width: 37, height: 1, radius: 0, color: color)
                var byRow = picture
                byRow.blendRow(row, color: color)
                XCTAssertEqual(byRow, byRectangle, "row \(row), \(color)")
                XCTAssertNotEqual(byRow, picture, "row \(row) is drawn")
            }
        }
    }

    func testShapesFarOffThePictureDrawNothing() {
        let blank = RGBAImage(width: 40, height: 20, fill: .black)
        var picture = blank
        picture.fillRoundedRect(x: 1e300, y: 5, width: 30, height: 10, radius: 5, color: .white)
        picture.fillRoundedRect(x: -1e300, y: 5, width: 30, height: 10, radius: 5, color: .white)
        picture.fillRoundedRect(x: .nan, y: 5, width: 30, height: 10, radius: 5, color: .white)
        picture.drawArc(cx: 1e300, cy: 0, radius: 5, thickness: 2, start: 0, end: 1, color: .white)
        picture.drawCircular(blank, cx: -.infinity, cy: 0, radius: 5)
        XCTAssertEqual(picture, blank)
        picture.fillRoundedRect(x: -1e300, y: -1e300, width: .greatestFiniteMagnitude, height: .greatestFiniteMagnitude,
                                radius: 0, color: .white)
        XCTAssertEqual(picture[0, 0], .white, "a rectangle larger than the picture covers it")
        XCTAssertEqual(picture[39, 19], .white)
    }
}
