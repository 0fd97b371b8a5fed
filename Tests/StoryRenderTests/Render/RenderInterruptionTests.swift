import Foundation
import StoryBase
import StoryEncode
import StoryMedia
import StoryModel
import StoryPlayback
import StoryRender
import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// SIGINT or SIGTERM while a live source is still opening: the render stops at its next frame,
/// not when the storyboard's open timeout runs out.
final class RenderInterruptionTests: XCTestCase {
    /// Renders `stories` (given the port of a server that accepts the connection and never
    /// answers) with an open timeout of 30 s, asked to stop 1 s in; the render must end within a
    /// few seconds, say it was interrupted, and fail no source for a wait it called off.
    func renderInterrupted(_ stories: (Int) -> String) throws -> (summary: RenderSummary, trace: [TraceEvent]) {
        try LiveServers.require("python3")
        let servers = ServerSet()
        defer { servers.stopAll() }
        let port = try servers.stallingServer()
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 3,
         "timeouts": {"open": 30, "read": 5, "retries": 0},
         "stories": [\(stories(port))]}
        """)
        let interruption = RenderInterruption()
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { interruption.request(signal: SIGINT) }
        let started = Date()
        let (summary, trace, _) = try render(board) { $0.interruption = interruption }
        let seconds = Date().timeIntervalSince(started)
        XCTAssertLessThan(seconds, 10, "the render waited \(seconds) s for a source that never answers")
        XCTAssertTrue(summary.interrupted)
        XCTAssertEqual(trace.of(.failed), [], "a wait called off is not a failure")
        return (summary, trace)
    }

    /// A live item's first picture: the player waits for it on the virtual clock.
    func testAnInterruptionEndsTheWaitForALiveSourcesFirstPicture() throws {
        let (summary, trace) = try renderInterrupted { port in
            #"{"id": "cam", "items": [{"uri": "rtmp://127.0.0.1:\#(port)/live/x", "live": true}]}"#
        }
        XCTAssertLessThan(summary.frames, 30)
        XCTAssertEqual(trace.of(.stop, story: "cam").count, 1, "the player was stopped")
    }

    /// A room's participant, whose sound thread the room waits for on the virtual clock before
    /// its first frame.
    func testAnInterruptionEndsTheWaitForARoomParticipantToOpen() throws {
        _ = try renderInterrupted { port in
            #"{"id": "panel", "room": {"participants": [{"id": "cam", "uri": "rtmp://127.0.0.1:\#(port)/live/x", "live": true}]}}"#
        }
    }
}
