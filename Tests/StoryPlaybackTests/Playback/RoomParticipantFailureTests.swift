import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// A participant that fails is that participant's failure, not its story's.
final class RoomParticipantFailureTests: TwoSpeakerRoomTestCase {
    /// The room goes on without its failed participant: no failed story; the failure names the
    /// participant, under `failed_participants`.
    func testAFailedParticipantIsNotAFailedStory() throws {
        let (summary, events, _) = try render(board(#"{"id": "ana", "uri": "ana.mp4"}, {"id": "gone", "uri": "missing.mp4", "avatar": "teal.jpg"}"#))
        XCTAssertEqual(events.of(.failed).map(\.participant), ["gone"])
        let json = summary.json
        XCTAssertTrue(json.contains(#""failed_stories": [],"#), json)
        XCTAssertTrue(json.contains(#""failed_participants": [{"story": "panel", "participant": "gone", "error": "#), json)
        XCTAssertFalse(json.contains("item 0"), json)
        XCTAssertTrue(json.contains(#"{"id": "panel", "plays": "#) && json.contains(#""failures": 0, "errors": []"#), json)
    }
}
