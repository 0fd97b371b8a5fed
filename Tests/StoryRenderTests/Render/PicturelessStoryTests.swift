import Foundation
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// A story that played without a picture from its source (a live one of sound only, or one left
/// before its first picture) is reported in the summary's notices, not left to a `first_frame`
/// count of zero; stories that showed pictures, failed ones (which say why already) and a room's
/// participants (shown by their avatars) are not.
final class PicturelessStoryTests: XCTestCase {
    func testAStoryWithoutAPictureIsNoted() {
        let trace = LifecycleTrace()
        trace.record(.play, t: 0, story: "radio", item: 0, player: 1)
        trace.record(.stop, t: 2, story: "radio", item: 0, player: 1, pictures: 0)
        trace.record(.play, t: 2, story: "clip", item: 0, player: 2)
        trace.record(.stop, t: 3, story: "clip", item: 0, player: 2, pictures: 30)
        trace.record(.play, t: 3, story: "photo", item: 0, player: 3)
        trace.record(.stop, t: 4, story: "photo", item: 0, player: 3, pictures: 1)
        trace.record(.play, t: 4, story: "broken", item: 0, player: 4)
        trace.record(.failed, t: 4, story: "broken", item: 0, player: 4, error: "no such file")
        trace.record(.stop, t: 5, story: "broken", item: 0, player: 4, pictures: 0)
        trace.record(.play, t: 5, story: "panel", player: 5, participant: "ana", media: "audio")
        trace.record(.stop, t: 6, story: "panel", player: 5, participant: "ana", media: "audio")
        var summary = RenderSummary(frames: 180, wallSeconds: 1, storyIDs: ["radio", "clip", "photo", "broken", "panel"], trace: trace,
                                    notices: ["an earlier notice"], stageSeconds: [:], cores: 2)
        summary.noteStoriesWithoutAPicture(trace: trace)
        XCTAssertEqual(summary.notices, ["an earlier notice",
                                         "story radio: no picture came from its source in 1 play (a source of sound only, "
                                         + "or left before its first picture): it showed its poster or loading card"])
        XCTAssertEqual(summary.failedStories.map(\.id), ["broken"])
    }
}
