@testable import Compositor
import Dispatch
import Synchronization
import XCTest

/// Text is FreeType's rendering of DejaVu Sans: anti-aliased, in the case it was written in,
/// the same from any thread. (It was a hand-made 5×7 bitmap font in capitals only.)
final class TypefaceTests: XCTestCase {
    static func drawn(_ text: String, size: Int = 24, face: Typeface = Typeface.regular) -> RGBAImage {
        var image = RGBAImage(width: 200, height: 40, fill: .black)
        face.draw(text, x: 4, y: 4, size: size, color: .white, on: &image)
        return image
    }

    /// The red channel of every pixel: white text on black, so it is the glyphs' coverage.
    static func coverage(_ image: RGBAImage) -> [UInt8] {
        Swift.stride(from: 0, to: image.pixels.count, by: 4).map { image.pixels[$0] }
    }

    func drawn(_ text: String, size: Int = 24, face: Typeface = Typeface.regular) -> RGBAImage {
        Self.drawn(text, size: size, face: face)
    }

    func coverage(_ image: RGBAImage) -> [UInt8] { Self.coverage(image) }

    // MARK: - The font

    func testTheStandardFacesAreDejaVuSans() throws {
        try Typeface.checkAvailable()
        XCTAssertEqual(Typeface.regular.name, "DejaVu Sans")
        XCTAssertEqual(Typeface.bold.name, "DejaVu Sans Bold")
    }

    func testAFontThatCannotBeOpenedIsAnErrorNamingIt() {
        XCTAssertThrowsError(try Typeface(path: "/no/such/font.ttf")) { error in
            let error = error as? CompositorError
            XCTAssertEqual(error?.code, .font)
            XCTAssertTrue(error?.message.contains("/no/such/font.ttf") == true, "\(String(describing: error))")
        }
    }

    // MARK: - What it draws

    func testTextIsAntiAliased() {
        let values = coverage(drawn("Story 12"))
        let edges = values.filter { $0 > 0 && $0 < 255 }.count
        XCTAssertGreaterThan(edges, 40, "edges are partly covered, not on or off")
        XCTAssertGreaterThan(values.filter { $0 == 255 }.count, 20, "stems are fully covered")
    }

    func testTextKeepsItsCase() {
        XCTAssertNotEqual(drawn("Ab"), drawn("AB"))
        XCTAssertLessThan(Typeface.regular.width(of: "story", size: 24), Typeface.regular.width(of: "STORY", size: 24))
        // A lower-case "a" has no ink where a capital's top is.
        let capitalTop = drawn("A"), lowerTop = drawn("a")
        let ascentRow = 4 + Typeface.regular.metrics(size: 24).ascent - 16
        XCTAssertTrue((4..<20).contains { capitalTop[$0, ascentRow].red > 128 })
        XCTAssertFalse((4..<20).contains { lowerTop[$0, ascentRow].red > 0 })
    }

    func testBoldIsHeavierThanRegular() {
        let regular = coverage(drawn("Story", face: Typeface.regular)).reduce(0) { $0 + Int($1) }
        let bold = coverage(drawn("Story", face: Typeface.bold)).reduce(0) { $0 + Int($1) }
        XCTAssertGreaterThan(bold, regular * 5 / 4)
    }

    func testACharacterTheFontLacksDrawsTheMissingGlyphBox() {
        // Plane 16's private use: no font has these; FreeType gives glyph 0, the .notdef box.
        let missing = drawn("\u{10FFFD}"), another = drawn("\u{10FFFC}")
        XCTAssertGreaterThan(Typeface.regular.width(of: "\u{10FFFD}", size: 24), 0, "it takes room")
        XCTAssertGreaterThan(coverage(missing).filter { $0 > 0 }.count, 20, "and shows")
        XCTAssertEqual(missing, another, "the same box for every missing character")
        XCTAssertEqual(Typeface.regular.width(of: "a\u{10FFFD}b", size: 24),
                       Typeface.regular.width(of: "a", size: 24) + Typeface.regular.width(of: "\u{10FFFD}", size: 24)
                           + Typeface.regular.width(of: "b", size: 24), "the text around it is laid out as usual")
    }

    func testPairsAreKerned() {
        let face = Typeface.regular
        XCTAssertLessThan(face.width(of: "AV", size: 40), face.width(of: "A", size: 40) + face.width(of: "V", size: 40))
    }

    func testTextIsClippedToThePicture() {
        var image = RGBAImage(width: 10, height: 10, fill: .black)
        Typeface.regular.draw("Wide text", x: -30, y: -8, size: 24, color: .white, on: &image)
        XCTAssertTrue(coverage(image).contains { $0 > 0 }, "what falls inside is drawn")
    }

    func testTruncatedTextEndsInAnEllipsisAndFits() {
        let face = Typeface.regular
        XCTAssertEqual(face.truncated("short", toFit: 200, size: 13), "short")
        let cut = face.truncated("a-story-id-much-longer-than-the-margin", toFit: 100, size: 13)
        XCTAssertTrue(cut.hasSuffix("…"))
        XCTAssertLessThanOrEqual(face.width(of: cut, size: 13), 100)
    }

    // MARK: - Threads

    /// FreeType's face is shared behind a lock: text drawn on many threads at once, at sizes that
    /// make each thread render new glyphs, comes out as it does on one thread.
    func testTextDrawnFromManyThreadsIsTheSame() {
        let face = try! Typeface(path: Typeface.debianFonts[.regular]!)
        let sizes = Array(10...25)
        let serialFace = try! Typeface(path: Typeface.debianFonts[.regular]!)
        let expected = sizes.map { drawn("Ready at \($0)px: ÄBÇ ß", size: $0, face: serialFace) }
        let results = Mutex<[Int: RGBAImage]>([:])
        DispatchQueue.concurrentPerform(iterations: sizes.count * 4) { index in
            let size = sizes[index % sizes.count]
            let image = Self.drawn("Ready at \(size)px: ÄBÇ ß", size: size, face: face)
            if index < sizes.count { results.withLock { $0[index] = image } }
            XCTAssertEqual(image, expected[index % sizes.count])
        }
        XCTAssertEqual(results.withLock { $0.count }, sizes.count)
    }
}
