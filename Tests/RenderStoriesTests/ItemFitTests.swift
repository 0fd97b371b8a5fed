import Compositor
import Foundation
import XCTest

/// An item's `fit` (and the canvas's default): a picture of another shape than the 90x160
/// screen covers it (cut), is shown whole over black bars (`contain`), or whole over a
/// blurred, darkened copy of itself (`blur`); at three shapes, from photos and a clip.
final class ItemFitTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    static let red = RGBAColor(red: 230, green: 20, blue: 20), green = RGBAColor(red: 20, green: 220, blue: 30)
    static let blue = RGBAColor(red: 20, green: 40, blue: 230)

    /// A photo of `width`x`height` in three bands across its long side: red, green, blue.
    func photo(_ name: String, width: Int, height: Int) throws -> String {
        var picture = RGBAImage(width: width, height: height, fill: Self.green)
        let across = width >= height
        let long = across ? width : height
        for i in 0..<(long / 3) {
            for j in 0..<(across ? height : width) {
                let (x1, y1) = across ? (i, j) : (j, i)
                let (x2, y2) = across ? (width - 1 - i, j) : (j, height - 1 - i)
                picture[x1, y1] = Self.red
                picture[x2, y2] = Self.blue
            }
        }
        let path = folder.file(name)
        try picture.writePNG(to: path)
        return path
    }

    /// Frame 5 of a one-story render of `uri` with `fit` on the item (or only on the canvas).
    func render(_ uri: String, fit: String?, canvasFit: String? = nil, name: String) throws -> RGBAImage {
        let itemFit = fit.map { #", "fit": "\#($0)""# } ?? ""
        let canvas = canvasFit.map { #", "fit": "\#($0)""# } ?? ""
        let board = folder.write("\(name).json", Array("""
        {"canvas": {"width": 90, "height": 160, "fps": 10\(canvas)}, "duration": 1,
         "stories": [{"id": "s", "items": [{"uri": "\(uri)", "duration": 1\(itemFit)}]}]}
        """.utf8))
        let out = folder.file(name)
        let result = try cli.run(["render", board, "--no-overlay", "--quiet", "--output", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try RGBAImage(contentsOfPNG: out + "/frame-000005.png")
    }

    func assertNear(_ pixel: RGBAColor, _ expected: RGBAColor, _ label: String, tolerance: Int = 12,
                    file: StaticString = #filePath, line: UInt = #line) {
        let close = [(pixel.red, expected.red), (pixel.green, expected.green), (pixel.blue, expected.blue)]
            .allSatisfy { abs(Int($0.0) - Int($0.1)) <= tolerance }
        XCTAssertTrue(close, "\(label): \(pixel) is not \(expected)", file: file, line: line)
    }

    func isBlack(_ pixel: RGBAColor) -> Bool { pixel.red < 4 && pixel.green < 4 && pixel.blue < 4 }

    /// 16:9 landscape: cover shows its middle band only; contain its three bands in a strip of
    /// 51 rows between black; blur the same strip between its own colours darkened.
    func testALandscapePhotoAtEachFit() throws {
        let uri = try photo("land.png", width: 160, height: 90)
        let cover = try render(uri, fit: "cover", name: "cover")
        for x in [2, 45, 87] { assertNear(cover[x, 80], Self.green, "cover, column \(x)") }
        let contain = try render(uri, fit: "contain", name: "contain")
        assertNear(contain[5, 80], Self.red, "contain, left")
        assertNear(contain[45, 80], Self.green, "contain, middle")
        assertNear(contain[85, 80], Self.blue, "contain, right")
        XCTAssertTrue(isBlack(contain[45, 10]) && isBlack(contain[45, 150]), "bars above and below")
        XCTAssertFalse(isBlack(contain[45, 60]), "the strip is 51 rows, 55 to 105")
        let blur = try render(uri, fit: "blur", name: "blur")
        XCTAssertEqual(blur[45, 80], contain[45, 80], "the picture itself as contain shows it")
        let fill = blur[45, 10]
        XCTAssertFalse(isBlack(fill), "a blurred fill, not a bar")
        XCTAssertGreaterThan(Int(fill.green), Int(fill.red), "the fill is the picture's middle: green")
        XCTAssertLessThan(Int(fill.green), 180, "darkened")
    }

    /// A tall photo narrower than the screen (1:4): contain puts bars at the sides; cover cuts
    /// its top and bottom; a square one fills the width with bars above and below.
    func testATallAndASquarePhoto() throws {
        let tall = try photo("tall.png", width: 40, height: 160)
        let contain = try render(tall, fit: "contain", name: "tall-contain")
        XCTAssertTrue(isBlack(contain[5, 80]) && isBlack(contain[85, 80]), "bars at the sides")
        assertNear(contain[45, 5], Self.red, "top band")
        assertNear(contain[45, 80], Self.green, "middle band")
        assertNear(contain[45, 155], Self.blue, "bottom band")
        let cover = try render(tall, fit: "cover", name: "tall-cover")
        for y in [30, 80, 120] { assertNear(cover[45, y], Self.green, "cover, row \(y)") }
        assertNear(cover[45, 2], Self.red, "cover keeps the middle: the top band's end")
        assertNear(cover[2, 80], Self.green, "cover fills the width")

        let square = try photo("square.png", width: 99, height: 99)
        let squareContain = try render(square, fit: "contain", name: "square-contain")
        XCTAssertTrue(isBlack(squareContain[45, 30]) && isBlack(squareContain[45, 130]))
        assertNear(squareContain[3, 80], Self.red, "left band, full width")
        assertNear(squareContain[86, 80], Self.blue, "right band, full width")
    }

    /// The canvas's `fit` serves items without their own; an item's own wins; a clip is fitted
    /// as a photo is.
    func testTheCanvasDefaultAndAClip() throws {
        let uri = try photo("land.png", width: 160, height: 90)
        let byCanvas = try render(uri, fit: nil, canvasFit: "contain", name: "by-canvas")
        XCTAssertTrue(isBlack(byCanvas[45, 10]))
        let own = try render(uri, fit: "cover", canvasFit: "contain", name: "own")
        assertNear(own[45, 10], Self.green, "the item's own cover")

        let clip = folder.file("land.mp4")
        try ExternalProgram.run(TestPrograms.tool("ffmpeg"), [
            "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x14dc1e:size=320x180:rate=10", "-t", "1",
            "-c:v", "libx264", "-pix_fmt", "yuv420p", clip,
        ])
        let video = try render(clip, fit: "contain", name: "clip-contain")
        XCTAssertTrue(isBlack(video[45, 10]) && isBlack(video[45, 150]), "bars above and below")
        assertNear(video[45, 80], Self.green, "the clip's picture", tolerance: 16)
    }

    /// `still` shows an item as its render does, fitted.
    func testAStillIsFittedAsTheRenderIs() throws {
        let uri = try photo("land.png", width: 160, height: 90)
        for fit in ["contain", "blur"] {
            let frame = try render(uri, fit: fit, name: "still-\(fit)")
            let board = folder.file("still-\(fit).json"), png = folder.file("still-\(fit).png")
            let result = try cli.run(["still", board, "--page", "0", "--time", "0.5", "--no-overlay", "--output", png])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(try RGBAImage(contentsOfPNG: png), frame, fit)
        }
    }

    /// A fit the tool does not know is a storyboard error naming where it is (exit 2).
    func testAnUnknownFitNamesItsPath() throws {
        let board = folder.write("bad.json", Array("""
        {"canvas": {"fit": "stretch"}, "stories": [{"id": "s", "items": [{"uri": "x.png", "fit": "fill"}]}]}
        """.utf8))
        let result = try cli.run(["render", board, "--quiet", "--output", folder.file("bad")])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains(#"canvas.fit: "stretch" is not one of "cover", "contain", "blur""#), result.stderr)
        XCTAssertTrue(result.stderr.contains("stories[0].items[0].fit"), result.stderr)
    }
}
