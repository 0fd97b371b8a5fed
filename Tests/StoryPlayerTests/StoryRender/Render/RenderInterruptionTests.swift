import Foundation
import StoryPlayer
import XCTest

/// SIGINT or SIGTERM while a live source is still opening: the render stops at its next frame,
/// not when the storyboard's open timeout runs out.
final class RenderInterruptionTests: XCTestCase {
    /// A server that accepts the connection and never answers holds the first picture for the
    /// whole open timeout (30 s here). Asked to stop 1 s in, the render ends within a few seconds,
    /// says it was interrupted, and does not fail the source for a wait it called off.
    func testAnInterruptionEndsTheWaitForALiveSourcesFirstPicture() throws {
        try LiveServers.require("python3")
        let servers = ServerSet()
        defer { servers.stopAll() }
        let port = try servers.stallingServer()
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 3,
         "timeouts": {"open": 30, "read": 5, "retries": 0},
         "stories": [{"id": "cam", "items": [{"uri": "rtmp://127.0.0.1:\(port)/live/x", "live": true}]}]}
        """)
        let interruption = RenderInterruption()
        let asked = DispatchTime.now() + 1
        DispatchQueue.global().asyncAfter(deadline: asked) { interruption.request(signal: SIGINT) }
        let started = Date()
        let (summary, trace, _) = try render(board) { $0.interruption = interruption }
        let seconds = Date().timeIntervalSince(started)
        XCTAssertLessThan(seconds, 10, "the render waited \(seconds) s for a source that never answers")
        XCTAssertTrue(summary.interrupted)
        XCTAssertLessThan(summary.frames, 30)
        XCTAssertEqual(trace.of(.failed), [], "a wait called off is not a failure")
        XCTAssertEqual(trace.of(.stop, story: "cam").count, 1, "the player was stopped")
    }

    /// The same for a room's participant, whose sound thread the room waits for on the virtual
    /// clock before its first frame.
    func testAnInterruptionEndsTheWaitForARoomParticipantToOpen() throws {
        try LiveServers.require("python3")
        let servers = ServerSet()
        defer { servers.stopAll() }
        let port = try servers.stallingServer()
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 3,
         "timeouts": {"open": 30, "read": 5, "retries": 0},
         "stories": [{"id": "panel", "room": {"participants": [{"id": "cam", "uri": "rtmp://127.0.0.1:\(port)/live/x", "live": true}]}}]}
        """)
        let interruption = RenderInterruption()
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { interruption.request(signal: SIGINT) }
        let started = Date()
        let (summary, trace, _) = try render(board) { $0.interruption = interruption }
        let seconds = Date().timeIntervalSince(started)
        XCTAssertLessThan(seconds, 10, "the render waited \(seconds) s for a participant that never answers")
        XCTAssertTrue(summary.interrupted)
        XCTAssertEqual(trace.of(.failed), [], "a wait called off is not a failure")
    }
}
