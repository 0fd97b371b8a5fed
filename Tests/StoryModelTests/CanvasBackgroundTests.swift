import Compositor
import StoryMedia
import StoryModel
import StoryPlayerTestSupport
import XCTest

/// `canvas.background` takes every colour form a stylesheet would (issue "What a new user ran
/// into", item 7): it used to accept `#RRGGBB` only, so a frame could never be transparent.
final class CanvasBackgroundTests: XCTestCase {
    func testTheBackgroundTakesShortLongAlphaAndTransparentForms() throws {
        let cases: [(String, RGBAColor)] = [
            ("#abc", RGBAColor(red: 0xaa, green: 0xbb, blue: 0xcc)),
            ("#10203040", RGBAColor(red: 0x10, green: 0x20, blue: 0x30, alpha: 0x40)),
            ("#102030", RGBAColor(red: 0x10, green: 0x20, blue: 0x30)),
            ("transparent", .transparent),
        ]
        for (text, color) in cases {
            let board = try Storyboard.parse(#"{"canvas": {"background": "\#(text)"}, "stories": [{"items": [{"uri": "a.mp4"}]}]}"#, folder: "/b")
            XCTAssertEqual(board.canvas.background, color, text)
        }
    }

    func testABadBackgroundNamesItsPathAndTheFormsItTakes() {
        for text in ["#12", "#12345", "#gggggg", "rgb(1,2,3)"] {
            XCTAssertThrowsError(try Storyboard.parse(#"{"canvas": {"background": "\#(text)"}, "stories": [{"items": [{"uri": "a"}]}]}"#, folder: "/b")) { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains("canvas.background: expected a colour"), message)
                XCTAssertTrue(message.contains("\"#RGB\"") && message.contains("\"transparent\"") && message.contains("got \"\(text)\""), message)
            }
        }
    }

    func testTheCommandLineOverridesTheBackground() throws {
        let board = try Storyboard.parse(##"{"canvas": {"background": "#101014"}, "stories": [{"items": [{"uri": "a.mp4"}]}]}"##, folder: "/b")
        XCTAssertEqual(board.overriding(background: .transparent).canvas.background, .transparent)
        XCTAssertEqual(board.overriding().canvas.background, RGBAColor(red: 0x10, green: 0x10, blue: 0x14))
    }
}
