import Compositor
import Foundation
@testable import StoryEncode
@testable import StoryMedia
@testable import StoryRender
import Synchronization
import XCTest

/// A recording's stream has no hole: frames the realtime clock was too late to draw are the
/// frame before them again, the last ones of the recording too (found on the Slurm test
/// cluster: a room recorded for 4 s counted 120 frames and its outputs held 118, when a
/// participant's player opened 3 frames before the end).
final class RecordingLateFramesTests: XCTestCase {
    /// What the recording's encoder was given.
    final class Received: Sendable {
        let frames = Mutex<[(index: Int, red: UInt8)]>([])
        let samples = Mutex(0)
    }

    /// An encoder that keeps what it is given, in place of the recording's H.264 and AAC encode.
    final class KeepingEncoder: ClipEncoding {
        let format = ExportFormat.mp4H264
        let carriesSound = true
        let received: Received
        init(_ received: Received) { self.received = received }
        func append(frame image: RGBAImage, index: Int) throws(MediaError) {
            received.frames.withLock { $0.append((index, image.pixels[0])) }
        }
        func append(audio samples: [Float]) throws(MediaError) { received.samples.withLock { $0 += samples.count } }
        func finish() throws(MediaError) {}
        func abandon() {}
    }

    private func picture(_ red: UInt8) -> RGBAImage {
        RGBAImage(width: 2, height: 2, fill: RGBAColor(red: red, green: 0, blue: 0))
    }

    /// Frames 0, 1 and 3 drawn, 2, 4 and 5 late: the encoder gets 0 to 5, each late one the
    /// picture before it, and the sound of all six frames (silence for the late ones).
    func testLateLastFramesAreTheLastDrawnFrameAgain() throws {
        let received = Received()
        var track = ClipTrack(recordingInto: ClipQueue(KeepingEncoder(received)))
        let fps = 30.0
        for (frame, red) in [(0, UInt8(10)), (1, 20), (3, 40)] {
            try track.submit(picture(red), frame: frame, fps: fps) { FrameSound(count: $0) }
        }
        try track.endFrames(FramesEnding(lateFrames: [2, 4, 5]))
        let frames = received.frames.withLock { $0 }
        XCTAssertEqual(frames.map(\.index), [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(frames.map(\.red), [10, 20, 20, 40, 40, 40])
        XCTAssertEqual(received.samples.withLock { $0 }, 6 * 1600 * 2, "48 kHz stereo for 6 frames at 30 fps")
    }
}
