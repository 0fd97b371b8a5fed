import Compositor
@testable import StoryMedia
import StoryModel
import XCTest

/// A text layer's words as libass sets them: shaped (Arabic letters join), wrapped at the
/// layer's width, outlined, and over its box.
final class TextLayerRendererTests: XCTestCase {
    func sprite(_ text: String, _ change: (inout StoryLayer.TextStyle) -> Void = { _ in }) throws -> LayerSprite {
        var style = StoryLayer.TextStyle(text: text)
        style.size = 40
        change(&style)
        return try TextLayerRenderer().sprite(for: style, canvasWidth: 720)
    }

    /// Joined, each beh takes its narrow medial form; kept apart by zero-width non-joiners, each
    /// is drawn whole. Without shaping the two would be the same width.
    func testArabicLettersAreJoinedByShaping() throws {
        let joined = try sprite("بببببب")
        let apart = try sprite("ب\u{200C}ب\u{200C}ب\u{200C}ب\u{200C}ب\u{200C}ب")
        XCTAssertLessThan(Double(joined.width), Double(apart.width) * 0.8, "joined \(joined.width) px, apart \(apart.width) px")
    }

    func testWordsWrapAtTheLayersWidth() throws {
        let text = "one two three four five six seven eight nine ten"
        let wide = try sprite(text) { $0.wrapWidth = 1 }
        let narrow = try sprite(text) { $0.wrapWidth = 0.3 }
        XCTAssertLessThanOrEqual(narrow.width, 216 + 8, "within 0.3 of 720 px, and its padding")
        XCTAssertGreaterThan(narrow.height, wide.height * 2, "on more lines")
    }

    func testAStrokeAndABoxMakeTheSpriteLarger() throws {
        let plain = try sprite("Sale")
        let stroked = try sprite("Sale") { $0.strokeWidth = 4 }
        let boxed = try sprite("Sale") { $0.background = RGBAColor(red: 0, green: 0, blue: 0, alpha: 200) }
        XCTAssertEqual(stroked.width, plain.width + 8, accuracy: 2, "4 px of outline each side")
        XCTAssertGreaterThan(boxed.width, plain.width + 20, "the box reaches around the words")
    }

    func testAMissingFontFileIsAnErrorThatSaysSo() {
        XCTAssertThrowsError(try sprite("x") { $0.font = "/nonexistent/brand.ttf"; $0.fontIsFile = true }) { error in
            XCTAssertTrue("\(error)".contains("cannot read the font /nonexistent/brand.ttf"), "\(error)")
        }
    }
}
