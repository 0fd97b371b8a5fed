import Compositor
import StoryEncode
import StoryMedia
@testable import StoryRender
import Synchronization
import XCTest

/// A recording's clip track gives each canvas back once the frame after it is submitted (it is
/// encoded by then, and no longer the frame to repeat), unshared, so a later frame is drawn
/// into the same storage: a new 3.7 MB canvas a frame (720x1280) cost the recorder 12 % of
/// its CPU in page faults and unmaps.
final class ClipTrackCanvasTests: XCTestCase {
    func testARecordingsCanvasComesBackUnsharedOnceTheNextFrameIsIn() throws {
        let pool = PicturePool(capacity: 2)
        let encoder = NotingEncoder()
        let queue = ClipQueue(encoder)
        var track = ClipTrack(recordingInto: queue, spareCanvases: pool)
        var first = RGBAImage(width: 64, height: 32, fill: .white)
        let storage = first.pixels.withUnsafeBufferPointer { $0.baseAddress }
        try track.submit(first, frame: 0, fps: 30, mix: { FrameSound(count: $0) })
        first = RGBAImage(width: 1, height: 1)
        XCTAssertNil(pool.take(), "the last frame is kept, to repeat if the next is late")
        try track.submit(RGBAImage(width: 64, height: 32, fill: .black), frame: 1, fps: 30, mix: { FrameSound(count: $0) })
        try track.finish()
        XCTAssertEqual(encoder.frames.withLock { $0 }, [0, 1])

        var back = try XCTUnwrap(pool.take(), "frame 0's canvas came back")
        XCTAssertEqual(back.pixels.withUnsafeBufferPointer { $0.baseAddress }, storage, "the same storage")
        back.fill(.black)
        XCTAssertEqual(back.pixels.withUnsafeBufferPointer { $0.baseAddress }, storage,
                       "drawn into in place: nothing else held it, so no copy was made")
    }

    /// A late frame is the frame before it again, though that canvas goes back and is drawn
    /// into for a later frame: what was encoded is never changed.
    func testALateFrameRepeatsTheOneBeforeItAndAReusedCanvasChangesNothingEncoded() throws {
        let pool = PicturePool(capacity: 2)
        let encoder = NotingEncoder()
        var track = ClipTrack(recordingInto: ClipQueue(encoder), spareCanvases: pool)
        try track.submit(RGBAImage(width: 8, height: 8, fill: .white), frame: 0, fps: 30, mix: { FrameSound(count: $0) })
        try track.submit(RGBAImage(width: 8, height: 8, fill: .black), frame: 2, fps: 30, mix: { FrameSound(count: $0) })
        var reused = try XCTUnwrap(pool.take())
        reused.fill(RGBAColor(red: 255, green: 0, blue: 0))
        try track.submit(reused, frame: 3, fps: 30, mix: { FrameSound(count: $0) })
        try track.finish()
        XCTAssertEqual(encoder.frames.withLock { $0 }, [0, 1, 2, 3])
        XCTAssertEqual(encoder.firstPixels.withLock { $0 },
                       [.white, .white, .black, RGBAColor(red: 255, green: 0, blue: 0)])
    }
}

/// An encoder that notes the frames it was given.
private final class NotingEncoder: ClipEncoding, Sendable {
    let frames = Mutex<[Int]>([])
    let firstPixels = Mutex<[RGBAColor]>([])
    var format: ExportFormat { .mp4H264 }
    var carriesSound: Bool { false }
    func append(frame image: RGBAImage, index: Int) throws(MediaError) {
        frames.withLock { $0.append(index) }
        firstPixels.withLock { $0.append(image[0, 0]) }
    }
    func append(audio samples: [Float]) throws(MediaError) {}
    func finish() throws(MediaError) {}
    func abandon() {}
}
