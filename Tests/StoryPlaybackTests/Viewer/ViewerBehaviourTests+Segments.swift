import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
import StoryPlayerTestSupport
import XCTest

extension ViewerBehaviourTests {
    /// On white content the segments stay visible: a soft scrim darkens the top behind them, the
    /// bars stay white, and on a small canvas they are still 2 px high.
    func testSegmentsStayVisibleOnWhiteAndSmall() throws {
        let photos = try folderWithPhotos()
        try RGBAImage(width: 8, height: 8, fill: .white).writePNG(to: photos.file("white.png"))
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 0.5,
         "stories": [{"id": "s", "items": [{"uri": "white.png", "duration": 1}, {"uri": "white.png", "duration": 1}]}]}
        """, folder: photos.path)
        let picture = try frame(try render(board).folder, 4)
        // 72 wide: inset 1.6 px, bars 2 px high from y = 1.6; the first bar is filled to 40 %.
        XCTAssertGreaterThan(picture[5, 2].red, 235, "the filled bar, white")
        XCTAssertLessThan(picture[35, 0].red, 200, "the scrim behind the bars, darker than the white picture")
        XCTAssertGreaterThan(picture[50, 2].red, picture[36, 2].red, "the next item's track stands out from the scrim in the gap")
        XCTAssertEqual(picture[36, 100], .white, "below the scrim the picture is untouched")
    }
}
