import Compositor
import Foundation
@testable import StoryPlayer
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
        let card = try RGBAImage(contentsOfPNG: StoryRender.framePath(folder.path, 1))
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
}
