import Compositor
import XCTest

/// The progress segments change only the rows `segmentRows` names, which is what lets the
/// render draw them on a player's own picture and put just those rows back.
final class StoryOverlayTests: XCTestCase {
    func testTheSegmentsChangeNoRowBelowTheirBand() {
        for (width, height) in [(72, 128), (96, 160), (720, 1280), (33, 400)] {
            for inset in [0.0, 24.5, 60.0] {
                let plain = TestPictures.ramp(width: width, height: height, blue: 90)
                var drawn = plain
                StoryOverlay.drawSegments(on: &drawn, count: 3, current: 1, progress: 0.4, inset: inset, opacity: 1)
                let rows = StoryOverlay.segmentRows(width: width, height: height, inset: inset)
                let label = "\(width)x\(height), inset \(inset)"
                XCTAssertNotEqual(drawn.topRows(rows), plain.topRows(rows), label)
                XCTAssertEqual(drawn.pixels[(rows * width * 4)...], plain.pixels[(rows * width * 4)...],
                               "\(label): a row below the first \(rows) changed")
                // The band is the scrim's height, whose last rows fade to nothing: it is no taller
                // than the rows drawn by more than an eighth.
                func row(_ picture: RGBAImage, _ y: Int) -> ArraySlice<UInt8> {
                    picture.pixels[(y * width * 4)..<((y + 1) * width * 4)]
                }
                let touched = (0..<height).last { y in row(drawn, y) != row(plain, y) } ?? 0
                XCTAssertLessThanOrEqual(rows - (touched + 1), max(1, rows / 8), label)
            }
        }
    }

    func testTopRowsRestoreInPlace() {
        let plain = TestPictures.ramp(width: 40, height: 30, blue: 10)
        var picture = plain
        let kept = picture.topRows(7)
        StoryOverlay.drawSegments(on: &picture, count: 2, current: 0, progress: 1, inset: 2, opacity: 1)
        XCTAssertNotEqual(picture, plain)
        picture.restoreTopRows(picture.topRows(0))
        picture.restoreTopRows(kept)
        XCTAssertEqual(picture, plain)
        var reused: [UInt8] = []
        plain.copyTopRows(30, into: &reused)
        plain.copyTopRows(2, into: &reused)
        XCTAssertEqual(reused, plain.topRows(2))
    }
}
