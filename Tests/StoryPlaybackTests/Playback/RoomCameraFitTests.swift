import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// A landscape camera in a room's large view is fitted whole, over a blurred fill of itself.
final class RoomCameraFitTests: TwoSpeakerRoomTestCase {
    /// A 1280x720 camera whose left edge is blue and right edge green: the large view shows both
    /// edges (the whole picture, fitted), and above and below it the picture's own colours,
    /// blurred and darkened, not black bars.
    func testALandscapeCameraIsFittedWholeOverABlurredFillOfItself() throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=red:s=1280x720:r=30:d=2",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2",
                    "-vf", "drawbox=x=0:y=0:w=160:h=720:color=blue:t=fill,drawbox=x=1120:y=0:w=160:h=720:color=lime:t=fill",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                    folder.file("wide.mp4")])
        let width = 288
        let (_, events, output) = try render(board(#"{"id": "cam", "uri": "wide.mp4"}"#, width: width, duration: 0.5))
        XCTAssertEqual(events.of(.failed), [], "\(events.map(\.jsonLine))")
        let frame = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, 3))
        let area = RoomLayout(width: width, height: width * 16 / 9).large
        // The picture fitted: the area's width, 16:9, centred.
        let shownHeight = area.width * 720 / 1280
        let top = area.y + (area.height - shownHeight) / 2
        let middle = Int(top + shownHeight / 2)
        func colour(_ fraction: Double, _ y: Int) -> RGBAColor { frame[Int(area.x + area.width * fraction), y] }
        XCTAssertLessThan(colour(0.05, middle).distance(to: RGBAColor(red: 0, green: 0, blue: 255)), 60,
                          "the left edge (blue) is shown: \(colour(0.05, middle))")
        XCTAssertLessThan(colour(0.95, middle).distance(to: RGBAColor(red: 0, green: 255, blue: 0)), 60,
                          "the right edge (green) is shown: \(colour(0.95, middle))")
        XCTAssertLessThan(colour(0.5, middle).distance(to: RGBAColor(red: 255, green: 0, blue: 0)), 60, "the centre is red")
        // Above and below: the picture's red, blurred and darkened; not black, not the placeholder.
        for y in [Int(area.y + (top - area.y) / 2), Int(top + shownHeight + (area.y + area.height - top - shownHeight) / 2)] {
            let fill = colour(0.5, y)
            XCTAssertGreaterThan(Int(fill.red), 60, "a fill of the picture's own colour at y \(y): \(fill)")
            XCTAssertGreaterThan(Int(fill.red), Int(fill.green) + 30, "reddish at y \(y): \(fill)")
            XCTAssertLessThan(Int(fill.red), 250, "darkened at y \(y): \(fill)")
        }
    }
}
