import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// `still` on a room is the frame a render of it draws.
final class RoomStillTests: TwoSpeakerRoomTestCase {
    /// The still of a room at time T is the frame a render shows at T: the layout with who is
    /// large then (the speaker from the sound up to T), and the strip.
    func testAStillOfARoomIsTheRenderedFrame() throws {
        let board = try board(#"{"id": "ana", "uri": "ana.mp4", "avatar": "orange.jpg"}, {"id": "ben", "uri": "ben.mp4", "avatar": "purple.jpg"}"#,
                              duration: 3.6)
        let (_, events, output) = try render(board)
        XCTAssertEqual(events.of(.speaker).map(\.participant), ["ana", "ben"], "ben speaks from 2 s")
        for (time, frameNumber) in [(1.0, 10), (3.5, 35)] {
            let frame = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, frameNumber))
            let still = try StillRender.render(board, pageOffset: 0, time: time)
            XCTAssertEqual(still.problems, [])
            XCTAssertEqual(still.image.width, frame.width)
            var worst = 0, differing = 0
            for y in 0..<frame.height {
                for x in 0..<frame.width {
                    let d = still.image[x, y].distance(to: frame[x, y])
                    worst = max(worst, d)
                    if d > 8 { differing += 1 }
                }
            }
            XCTAssertEqual(differing, 0, "the still at \(time) s is frame \(frameNumber) (worst difference \(worst))")
        }
    }
}
