import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

/// A failed story shows what went wrong (it was a blank maroon rectangle): an alert icon, the
/// story's id and the reason, over the story's blurred poster when it has one.
final class ErrorCardTests: XCTestCase {
    func testAFailedStoryShowsWhatWentWrong() throws {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 360, "height": 640, "fps": 5}, "duration": 0.4,
         "stories": [{"id": "broken", "poster": "\(Fixture.sample("beach-poster.jpg"))",
                      "items": [{"uri": "\(Fixture.sample("demo.json"))"}]}]}
        """)
        let (_, events, folder) = try render(board)
        XCTAssertEqual(events.of(.failed).count, 1)
        let card = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(folder.path, 1))
        XCTAssertLessThan(card[193, Int(640 * 0.38)].distance(to: ErrorCardPicture.icon), 10, "the alert icon")
        var text = 0
        for y in 260..<380 { for x in 0..<360 where card[x, y].red > 200 && card[x, y].green > 190 { text += 1 } }
        XCTAssertGreaterThan(text, 200, "the story's id and the reason, written")
        XCTAssertNotEqual(card[40, 600], ErrorCardPicture.card, "over the blurred poster, not the bare card")
        // Without a poster: the dark card, with the same writing.
        let bare = ErrorCardPicture.render(width: 360, height: 640, backdrop: nil, title: "bare", reason: "cannot open x")
        XCTAssertEqual(bare[40, 600], ErrorCardPicture.card)
        XCTAssertLessThan(bare[193, Int(640 * 0.38)].distance(to: ErrorCardPicture.icon), 10)
    }

    /// The card's writing is DejaVu Sans through FreeType (it was a 5×7 bitmap font in capitals):
    /// the id in its own case, edges anti-aliased.
    func testTheCardWritesInItsOwnCaseAntiAliased() {
        func card(_ title: String) -> RGBAImage {
            ErrorCardPicture.render(width: 360, height: 640, backdrop: nil, title: title, reason: "the source never answered")
        }
        let lower = card("Beach"), upper = card("BEACH")
        let titleRows = 270..<300
        func title(_ picture: RGBAImage) -> [RGBAColor] { titleRows.flatMap { y in (0..<360).map { picture[$0, y] } } }
        XCTAssertNotEqual(title(lower), title(upper), "\"Beach\" is not written as \"BEACH\"")
        let written = title(lower).filter { $0 != ErrorCardPicture.card }
        XCTAssertGreaterThan(written.filter { $0 == .white }.count, 20, "stems are fully covered")
        XCTAssertGreaterThan(written.filter { $0 != .white }.count, 20, "edges are blends of white and the card")
        // And as the typeface draws it, centred.
        var expected = RGBAImage(width: 360, height: 640, fill: ErrorCardPicture.card)
        let size = 20, y = Int(640 * 0.38 + 22 + 14)
        Typeface.bold.draw("Beach", x: (360 - Typeface.bold.width(of: "Beach", size: size)) / 2, y: y, size: size, color: .white, on: &expected)
        XCTAssertEqual(title(lower), title(expected))
    }

    /// The card of a story whose server refuses the connection says why ("Connection refused"),
    /// not only "cannot open …": the frame's writing is the card with the whole reason.
    func testTheErrorCardSaysTheCause() throws {
        let url = "http://127.0.0.1:\(LiveServers.freePort())/a.mp4"
        let board = try Storyboard.parse("""
        {"canvas": {"width": 360, "height": 640, "fps": 5}, "duration": 0.4,
         "stories": [{"id": "refused", "items": [{"uri": "\(url)"}]}]}
        """)
        let (summary, events, folder) = try render(board) { $0.overlay = false }
        let failed = try XCTUnwrap(events.of(.failed).first?.error, "\(summary.notices)")
        XCTAssertTrue(failed.contains("Connection refused"), failed)
        let frame = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(folder.path, 1))
        let message = try XCTUnwrap(failed.components(separatedBy: ": Connection refused").first)
        let whole = ErrorCardPicture.render(width: 360, height: 640, backdrop: nil, title: "refused", reason: failed)
        let bare = ErrorCardPicture.render(width: 360, height: 640, backdrop: nil, title: "refused", reason: message)
        func differing(_ card: RGBAImage) -> Int {
            var count = 0
            for y in 250..<640 { for x in 0..<360 where frame[x, y].distance(to: card[x, y]) > 40 { count += 1 } }
            return count
        }
        XCTAssertGreaterThan(differing(bare), 100, "the frame is not the card without the cause")
        XCTAssertLessThan(differing(whole), differing(bare) / 10, "the frame shows the card with the cause")
    }
}
