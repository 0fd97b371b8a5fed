import Compositor
import Foundation
@testable import StoryMedia
import StoryModel
import XCTest

/// Colour emoji in text layers and captions: drawn from Noto Color Emoji's bitmaps where libass
/// laid out the line, their colour read back from the pixels.
final class ColourEmojiTests: XCTestCase {
    override func setUpWithError() throws {
        // scripts/install-deps.sh installs fonts-noto-color-emoji; without it this is a set-up fault.
        XCTAssertNotNil(EmojiFont.standard, "no Noto Color Emoji (fonts-noto-color-emoji) in \(EmojiFont.knownFiles)")
        try XCTSkipIf(EmojiFont.standard == nil)
    }

    /// A text layer's sprite drawn over black, straight colour.
    func layer(_ text: String, size: Double = 48, _ change: (inout StoryLayer.TextStyle) -> Void = { _ in }) throws -> RGBAImage {
        var style = StoryLayer.TextStyle(text: text)
        style.size = size
        change(&style)
        let sprite = try TextLayerRenderer().sprite(for: style, canvasWidth: 720)
        var picture = RGBAImage(width: sprite.width, height: sprite.height, fill: .black)
        picture.draw(sprite, at: SpritePlacement(centreX: Double(sprite.width) / 2, centreY: Double(sprite.height) / 2))
        if let folder = ProcessInfo.processInfo.environment["EMOJI_PICTURES"] {
            try picture.writePNG(to: "\(folder)/\(text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: "-")).png")
        }
        return picture
    }

    /// The pixels of `picture` that `kind` accepts: their count and the middle of their box.
    func pixels(_ picture: RGBAImage, _ kind: (Int, Int, Int) -> Bool) -> (count: Int, columns: ClosedRange<Int>?) {
        var count = 0, left = Int.max, right = Int.min
        for y in 0..<picture.height {
            for x in 0..<picture.width {
                let at = (y * picture.width + x) * 4
                let (r, g, b) = (Int(picture.pixels[at]), Int(picture.pixels[at + 1]), Int(picture.pixels[at + 2]))
                guard kind(r, g, b) else { continue }
                count += 1
                (left, right) = (min(left, x), max(right, x))
            }
        }
        return (count, count > 0 ? left...right : nil)
    }

    static func yellow(_ r: Int, _ g: Int, _ b: Int) -> Bool { r > 200 && g > 150 && b < 110 && r - b > 120 }
    static func red(_ r: Int, _ g: Int, _ b: Int) -> Bool { r > 170 && g < 90 && b < 90 }
    static func blue(_ r: Int, _ g: Int, _ b: Int) -> Bool { b > 120 && r < 90 && b - r > 60 }
    static func grey(_ r: Int, _ g: Int, _ b: Int) -> Bool { max(r, g, b) - min(r, g, b) < 24 }

    /// 😀 is yellow on the pixels, beside white words; the words stay as libass draws them.
    func testAGrinningFaceIsYellowBesideItsWords() throws {
        let picture = try layer("Sale 😀")
        let face = pixels(picture, Self.yellow)
        // A 48 px line: the face is about 44 px across, most of it yellow.
        XCTAssertGreaterThan(face.count, 600, "yellow pixels of the face")
        let white = pixels(picture) { r, g, b in r > 230 && g > 230 && b > 230 }
        XCTAssertGreaterThan(white.count, 300, "the word's white")
        let columns = try XCTUnwrap(face.columns)
        XCTAssertGreaterThan(columns.lowerBound, picture.width / 2, "the face after the word, left to right")
        let plain = pixels(try layer("Sale"), Self.yellow)
        XCTAssertEqual(plain.count, 0, "no yellow in the words alone")
    }

    func testAHeartAskedInColourIsRed() throws {
        XCTAssertGreaterThan(pixels(try layer("❤️"), Self.red).count, 500, "❤️ (U+2764 U+FE0F) in red")
        // Without U+FE0F a heart is text, as phones show it: no colour.
        XCTAssertEqual(pixels(try layer("☺"), Self.yellow).count, 0, "☺ without U+FE0F stays text")
    }

    /// A flag is two regional letters shaped into one glyph; a family, four people joined by
    /// ZWJs into one. Each takes one emoji's width, not its parts'.
    func testSequencesAreShapedIntoOneEmoji() throws {
        let single = try layer("😀")
        let flag = try layer("🇫🇷")
        XCTAssertEqual(flag.width, single.width, accuracy: 3, "🇫🇷 as wide as one emoji")
        let blue = pixels(flag, Self.blue), red = pixels(flag, Self.red)
        XCTAssertGreaterThan(blue.count, 150, "the flag's blue")
        XCTAssertGreaterThan(red.count, 150, "the flag's red")
        if let blue = blue.columns, let red = red.columns {
            XCTAssertLessThan(blue.lowerBound + blue.upperBound, red.lowerBound + red.upperBound, "blue at the hoist, red at the fly")
        }
        let family = try layer("👨‍👩‍👧‍👦")
        XCTAssertEqual(family.width, single.width, accuracy: 3, "a ZWJ family as wide as one emoji")
        let toned = try layer("👍🏽")
        XCTAssertEqual(toned.width, single.width, accuracy: 3, "a skin tone joins its hand")
    }

    /// In right-to-left words the emoji after them in the text stands to their left.
    func testAnEmojiFollowsRightToLeftWords() throws {
        let picture = try layer("مرحبا 😀")
        let face = pixels(picture, Self.yellow)
        XCTAssertGreaterThan(face.count, 600)
        let columns = try XCTUnwrap(face.columns)
        XCTAssertLessThan(columns.upperBound, picture.width / 2, "the face left of the Arabic word")
    }

    /// Emoji sized with the line: twice the size, about twice the width.
    func testAnEmojiScalesWithItsText() throws {
        let small = pixels(try layer("😀", size: 32), Self.yellow).count
        let large = pixels(try layer("😀", size: 64), Self.yellow).count
        XCTAssertEqual(Double(large) / Double(max(1, small)), 4, accuracy: 1, "area grows as the square: \(small) and \(large) px")
    }

    /// A caption's emoji drawn in colour on the frame, inside the box check-layout measures.
    func testACaptionsEmojiIsInColourInsideItsBox() throws {
        let captions = CaptionTrack(cues: [CaptionCue(start: 0, end: 2, runs: [CaptionRun(text: "Tonight 🎉🎉")])])
        let layout = CaptionLayout(width: 360, height: 640)
        let renderer = try CaptionRenderer(captions, layout: layout)
        var picture = RGBAImage(width: 360, height: 640, fill: RGBAColor(red: 40, green: 40, blue: 40))
        XCTAssertTrue(renderer.draw(on: &picture, at: 1))
        // 🎉's cone is yellow and orange; its streamers red, blue, green.
        let coloured = pixels(picture) { r, g, b in !Self.grey(r, g, b) }
        XCTAssertGreaterThan(coloured.count, 200, "the two party poppers' colour")
        let box = try XCTUnwrap(renderer.drawnBox())
        let columns = try XCTUnwrap(coloured.columns)
        XCTAssertLessThanOrEqual(Double(columns.upperBound) / 360, box.x.upperBound + 0.01, "the emoji inside the measured box")
        // Two of one emoji side by side come back as two: as many coloured pixels as two single ones.
        let once = try CaptionRenderer(CaptionTrack(cues: [CaptionCue(start: 0, end: 2, runs: [CaptionRun(text: "Tonight 🎉")])]), layout: layout)
        var single = RGBAImage(width: 360, height: 640, fill: RGBAColor(red: 40, green: 40, blue: 40))
        once.draw(on: &single, at: 1)
        let one = pixels(single) { r, g, b in !Self.grey(r, g, b) }.count
        XCTAssertEqual(Double(coloured.count) / Double(max(1, one)), 2, accuracy: 0.25, "🎉🎉 against 🎉: \(coloured.count) and \(one) px")
    }
}
