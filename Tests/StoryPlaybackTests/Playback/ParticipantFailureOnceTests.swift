import Foundation
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// A participant whose source breaks fails both its video player and its sound thread: one cause,
/// listed once under `failed_participants` (stderr printed it twice).
final class ParticipantFailureOnceTests: XCTestCase {
    func testAParticipantIsListedOnceWhateverFailed() {
        let trace = LifecycleTrace()
        trace.record(.play, t: 0, story: "panel", player: 1, participant: "ana")
        trace.record(.play, t: 0, story: "panel", player: 2, participant: "ana", media: "audio")
        trace.record(.play, t: 0, story: "panel", player: 3, participant: "ben", media: "audio")
        trace.record(.failed, t: 1, story: "panel", player: 2, error: "no data for 1 s", participant: "ana", media: "audio")
        trace.record(.failed, t: 1.1, story: "panel", player: 1, error: "the connection failed", participant: "ana")
        trace.record(.failed, t: 1.2, story: "panel", player: 3, error: "the connection failed", participant: "ben", media: "audio")
        let summary = RenderSummary(frames: 10, wallSeconds: 1, storyIDs: ["panel"], trace: trace, notices: [],
                                    stageSeconds: [:], cores: 2)
        XCTAssertEqual(summary.failedParticipants.map(\.participant), ["ana", "ben"])
        XCTAssertEqual(summary.failedParticipants.first?.error, "no data for 1 s", "the first failure says why")
    }
}
