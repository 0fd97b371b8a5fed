import Compositor
import StoryEncode
import StoryMedia
@testable import StoryRender
import Synchronization
import XCTest

/// A recording's encoder gives each canvas back once it has encoded it, whole and unshared, so
/// the next frame is drawn into the same storage: a new 3.7 MB canvas a frame (720x1280) cost
/// the recorder 12 % of its CPU in page faults and unmaps.
final class ClipQueueCanvasTests: XCTestCase {
    func testAnEncodedCanvasComesBackUnsharedAndIsDrawnIntoInPlace() throws {
        let pool = PicturePool(capacity: 2)
        let encoder = NotingEncoder()
        let queue = ClipQueue(encoder, returningCanvasesTo: pool)
        var canvas = RGBAImage(width: 64, height: 32, fill: .white)
        let storage = canvas.pixels.withUnsafeBufferPointer { $0.baseAddress }
        queue.submit(frame: canvas, index: 0, audio: [])
        canvas = RGBAImage(width: 1, height: 1)
        try queue.finish()
        XCTAssertEqual(encoder.frames.withLock { $0 }, [0], "the frame was encoded first")

        var back = try XCTUnwrap(pool.take(), "the canvas came back")
        XCTAssertEqual(back.pixels.withUnsafeBufferPointer { $0.baseAddress }, storage, "the same storage")
        back.fill(.black)
        XCTAssertEqual(back.pixels.withUnsafeBufferPointer { $0.baseAddress }, storage,
                       "drawn into in place: nothing else held it, so no copy was made")
    }

    func testWithoutAPoolTheCanvasIsLetGo() throws {
        let encoder = NotingEncoder()
        let queue = ClipQueue(encoder)
        queue.submit(frame: RGBAImage(width: 8, height: 8), index: 0, audio: [])
        try queue.finish()
        XCTAssertEqual(encoder.frames.withLock { $0 }, [0])
    }
}

/// An encoder that notes the frames it was given.
private final class NotingEncoder: ClipEncoding, Sendable {
    let frames = Mutex<[Int]>([])
    var format: ExportFormat { .mp4H264 }
    var carriesSound: Bool { false }
    func append(frame image: RGBAImage, index: Int) throws(MediaError) { frames.withLock { $0.append(index) } }
    func append(audio samples: [Float]) throws(MediaError) {}
    func finish() throws(MediaError) {}
    func abandon() {}
}
