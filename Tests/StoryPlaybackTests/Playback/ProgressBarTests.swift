import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// The overlay's bar starts when the item's first picture shows and fills the time left: an item
/// whose first picture came late (a live source opening on the realtime clock) no longer jumps
/// ahead by the time it loaded.
final class ProgressBarTests: XCTestCase {
    func testALateFirstPictureStartsTheBarFromZeroAndItStillEndsFull() throws {
        // counter.mp4 lasts 1 s. The realtime clock never waits for a picture: this one is first
        // shown at 0.4 s, as a slow source's would be.
        let (player, item) = try playCounterClip("late", playback: .realtime)
        defer { player.stop(at: 1) }
        XCTAssertTrue(LiveServers.waitUntil(3) { item.picture(at: 0.4) != nil }, "the first picture comes")
        XCTAssertEqual(item.firstFrameAt ?? -1, 0.4, accuracy: 1e-9)
        XCTAssertEqual(item.progress(at: 0.4), 0.4, accuracy: 1e-9, "the item's own time ran while it loaded")
        XCTAssertEqual(item.barProgress(at: 0.4), 0, accuracy: 1e-9, "the bar starts with the first picture")
        XCTAssertEqual(item.barProgress(at: 0.7), 0.5, accuracy: 1e-9, "and fills the 0.6 s left")
        XCTAssertEqual(item.barProgress(at: 1.0), 1, accuracy: 1e-9, "full at the item's end")
    }

    /// A hold pauses the bar where it is; one begun after the first picture does not move where
    /// the bar started (the demo's hold at 2.1 s, over a photo shown at once, moved it).
    func testAHoldAfterTheFirstPictureOnlyPausesTheBar() throws {
        let (player, item) = try playCounterClip("held")
        defer { player.stop(at: 1) }
        XCTAssertNotNil(item.picture(at: 0))
        item.pause(at: 0.5)
        for t in [0.5, 0.6, 0.9] { XCTAssertEqual(item.barProgress(at: t), 0.5, accuracy: 1e-12, "held at \(t)") }
        item.resume(at: 0.9)
        XCTAssertEqual(item.barProgress(at: 1.0), 0.6, accuracy: 1e-12, "on from where it stopped")
    }

    func testAFirstPictureShownAtOnceFillsTheBarAsTheItemPlays() throws {
        let (player, item) = try playCounterClip("prompt")
        defer { player.stop(at: 1) }
        XCTAssertNotNil(item.picture(at: 0))
        for t in [0.0, 0.25, 0.5, 1.0] { XCTAssertEqual(item.barProgress(at: t), item.progress(at: t), accuracy: 1e-12, "\(t)") }
    }
}
