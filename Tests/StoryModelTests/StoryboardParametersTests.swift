import Foundation
import Compositor
@testable import StoryModel
import StoryPlayerTestSupport
import XCTest

/// A storyboard's `parameters`: declarations, `{{name}}` references, and the errors a variant's
/// values can make, each with its JSON path.
final class StoryboardParametersTests: XCTestCase {
    let folder = "/boards/product"

    static let board = """
        {"parameters": {"product": {"type": "string", "default": "Shoes"},
                        "length": {"type": "number", "default": 6, "min": 1, "max": 60},
                        "muted": {"type": "bool", "default": false},
                        "accent": {"type": "colour", "default": "#ff8800"},
                        "clip": {"type": "file", "default": "clips/en.mp4"},
                        "stream": {"type": "url", "default": "https://example.com/live.m3u8"},
                        "lang": {"type": "string", "enum": ["en", "fr", "de"], "default": "en"}},
         "canvas": {"background": "{{accent}}"},
         "stories": [{"id": "{{product}}-{{lang}}", "items": [{"uri": "clips/{{lang}}.mp4", "duration": "{{length}}"}]},
                     {"id": "live", "items": [{"uri": "{{stream}}", "live": "{{muted}}"}]}]}
        """

    private func board(_ values: [String: String] = [:], row: String? = nil) throws -> Storyboard {
        try Storyboard(json: Data(Self.board.utf8), folder: folder, parameters: values, row: row)
    }

    private func error(_ values: [String: String], text: String = StoryboardParametersTests.board, row: String? = nil) -> StoryboardError? {
        do {
            _ = try Storyboard(json: Data(text.utf8), folder: folder, parameters: values, row: row)
            return nil
        } catch {
            return error
        }
    }

    func testDefaultsFillEveryReferenceTyped() throws {
        let board = try board()
        XCTAssertEqual(board.stories[0].id, "Shoes-en", "references inside a string are written in")
        XCTAssertEqual(board.stories[0].items[0].duration, 6, "a whole reference takes the number itself")
        XCTAssertEqual(board.stories[0].items[0].source.location, "/boards/product/clips/en.mp4")
        XCTAssertEqual(board.stories[1].items[0].isLive, false, "a whole reference takes the bool itself")
        XCTAssertEqual(board.stories[1].items[0].source.location, "https://example.com/live.m3u8")
        XCTAssertEqual(board.canvas.background, RGBAColor(parsing: "#ff8800"))
    }

    func testAVariantsValuesWin() throws {
        let board = try board(["product": "Hats", "lang": "fr", "length": "2.5", "muted": "true", "accent": "#000"])
        XCTAssertEqual(board.stories[0].id, "Hats-fr")
        XCTAssertEqual(board.stories[0].items[0].duration, 2.5)
        XCTAssertEqual(board.stories[0].items[0].source.location, "/boards/product/clips/fr.mp4")
        XCTAssertEqual(board.stories[1].items[0].isLive, true)
    }

    /// Each mistake of a variant is a storyboard error naming the parameter's JSON path, the
    /// parameter, and the row it came from.
    func testAVariantsMistakesNameTheParameterAndTheRow() {
        XCTAssertEqual(error(["length": "long"], row: "row 3")?.all.map(\.path), ["parameters.length"])
        XCTAssertEqual(error(["length": "long"], row: "row 3")?.message, "length=long (row 3): \"long\" is not a number")
        XCTAssertEqual(error(["length": "99"])?.message, "length=99: 99 is above max 60")
        XCTAssertEqual(error(["lang": "es"])?.message, #"lang=es: "es" is not one of "en", "fr", "de""#)
        XCTAssertEqual(error(["muted": "maybe"])?.message, #"muted=maybe: "maybe" is not true or false"#)
        XCTAssertEqual(error(["accent": "orange"])?.path, "parameters.accent")
        XCTAssertEqual(error(["stream": "example.com/live"])?.path, "parameters.stream")
        XCTAssertEqual(error(["colour": "red"])?.message, "no parameter colour is declared; the storyboard declares "
                       + "accent, clip, lang, length, muted, product, stream")
        // A file parameter names a file in the storyboard's folder, never outside it.
        XCTAssertEqual(error(["clip": "../../etc/passwd"])?.message,
                       #"clip=../../etc/passwd: "../../etc/passwd" is outside the storyboard's folder (/boards/product): refused"#)
        XCTAssertEqual(error(["clip": "/etc/passwd"])?.path, "parameters.clip")
        XCTAssertNil(error(["clip": "clips/../other.mp4"]), "inside the folder, however it is written")
    }

    func testDeclarationsAndReferencesAreChecked() {
        let unknown = #"{"stories": [{"id": "s", "items": [{"uri": "a-{{nope}}.mp4"}]}]}"#
        XCTAssertEqual(error([:], text: unknown)?.path, "stories[0].items[0].uri")
        XCTAssertEqual(error([:], text: unknown)?.message, #""{{nope}}" names no parameter (the storyboard declares none)"#)
        let noDefault = #"{"parameters": {"p": {"type": "string"}}, "stories": [{"id": "{{p}}", "items": [{"uri": "a.mp4"}]}]}"#
        XCTAssertEqual(error([:], text: noDefault)?.message, #"no value: give one (--set p=…) or a "default""#)
        XCTAssertNil(error(["p": "x"], text: noDefault))
        let badType = #"{"parameters": {"p": {"type": "text"}}, "stories": [{"id": "s", "items": [{"uri": "a.mp4"}]}]}"#
        XCTAssertEqual(error([:], text: badType)?.path, "parameters.p.type")
        let badDefault = #"{"parameters": {"n": {"type": "number", "default": "six"}}, "stories": [{"id": "s", "items": [{"uri": "a.mp4"}]}]}"#
        XCTAssertEqual(error([:], text: badDefault)?.path, "parameters.n.default")
        let typo = #"{"parameters": {"n": {"type": "number", "defualt": 1}}, "stories": [{"id": "s", "items": [{"uri": "a.mp4"}]}]}"#
        XCTAssertEqual(error([:], text: typo)?.path, "parameters.n.defualt")
    }

    func testTheDeclarationsAreListed() throws {
        let declared = try Storyboard.parameters(json: Data(Self.board.utf8), folder: folder)
        XCTAssertEqual(declared.map(\.name), ["accent", "clip", "lang", "length", "muted", "product", "stream"])
        XCTAssertEqual(declared.first { $0.name == "length" }?.maximum, 60)
        XCTAssertEqual(declared.first { $0.name == "lang" }?.allowed, [.text("en"), .text("fr"), .text("de")])
    }
}
