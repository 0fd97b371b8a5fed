import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// What the room tests of a rendered room share: two speakers, each a solid colour with a tone in
/// its own seconds (as RoomTests'), and three pictures, made once per test; and a board of a room
/// of them. Its subclasses are the tests; it has none of its own.
class TwoSpeakerRoomTestCase: XCTestCase {
    var folder: ScratchFolder!

    override func setUpWithError() throws {
        try LiveServers.require("ffmpeg")
        folder = ScratchFolder()
        // Two speakers, each a solid colour with a tone in its own seconds (as RoomTests').
        for (id, colour, tone, start) in [("ana", "red", 440, 0.0), ("ben", "green", 550, 2.0)] {
            try ffmpeg(["-f", "lavfi", "-i", "color=c=\(colour):s=180x320:r=30:d=5",
                        "-f", "lavfi", "-i", "sine=frequency=\(tone):sample_rate=48000:duration=5",
                        "-af", "volume=enable='not(between(t,\(start),\(start + 2)))':volume=0",
                        "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                        folder.file("\(id).mp4")])
        }
        for colour in ["orange", "purple", "teal"] {
            try ffmpeg(["-f", "lavfi", "-i", "color=c=\(colour):s=64x64", "-frames:v", "1", folder.file("\(colour).jpg")])
        }
    }

    override func tearDown() { folder = nil }

    func board(_ participants: String, width: Int = 144, duration: Double = 1, script: String = "") throws -> Storyboard {
        try Storyboard.parse("""
        {"canvas": {"width": \(width), "height": \(width * 16 / 9), "fps": 10}, "duration": \(duration),
         "stories": [{"id": "panel", "room": {"participants": [\(participants)]}, "duration": 20}], "script": [\(script)]}
        """, folder: folder.path)
    }
}
