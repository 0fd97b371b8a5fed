import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
import StoryBase
import Synchronization
import StoryPlayerTestSupport
import XCTest

/// A playing video decodes on FFmpeg's frame threads: the same pictures as on one thread, and
/// their CPU time charged to the decode stage.
final class DecoderThreadsTests: XCTestCase {
    /// Every picture of a clip with B-frames, as RGBA, with its time.
    private func pictures(threads: Int) throws -> [(Double, [UInt8])] {
        var limits = DecodeLimits()
        limits.decoderThreads = threads
        let decoder = try MediaDecoder(source: MediaSource(uri: Fixture.sample("night.mp4"), relativeTo: "/"), limits: limits)
        defer { decoder.close() }
        var pictures: [(Double, [UInt8])] = []
        while let picture = try decoder.nextPicture() {
            pictures.append((picture.time, try decoder.rgba(picture, width: 90, height: 160).pixels))
        }
        return pictures
    }

    func testFrameThreadsDecodeTheSamePictures() throws {
        let one = try pictures(threads: 1), two = try pictures(threads: 2)
        XCTAssertEqual(one.count, 90)
        XCTAssertEqual(one.map(\.0), two.map(\.0))
        for (index, (a, b)) in zip(one, two).enumerated() where a.1 != b.1 {
            XCTFail("picture \(index) differs between one and two decoder threads")
        }
    }

    /// The threads FFmpeg starts for the decoder are found by the opening thread's name, and
    /// they, not the opening thread, do most of the decoding.
    func testTheDecodersOwnThreadsAreFoundAndTimed() throws {
        let result = Mutex<(workers: Int, workerCPU: Double, ownCPU: Double, error: String?)>((0, 0, 0, nil))
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            DecoderWorkers.nameThisThread("test #1 threads")
            do {
                var limits = DecodeLimits()
                limits.decoderThreads = 2
                let start = StageClock.threadCPUSeconds()
                let decoder = try MediaDecoder(source: MediaSource(uri: Fixture.sample("night.mp4"), relativeTo: "/"),
                                               limits: limits)
                while try decoder.nextPicture() != nil {}
                let own = StageClock.threadCPUSeconds() - start
                let workers = decoder.workers
                result.withLock { $0 = (workers.count, workers.cpuSeconds, own, nil) }
                decoder.close()
            } catch {
                result.withLock { $0.error = "\(error)" }
            }
        }
        thread.start()
        done.wait()
        let (workers, workerCPU, ownCPU, error) = result.withLock { $0 }
        XCTAssertNil(error)
        XCTAssertEqual(workers, 2, "two frame threads, named as the thread that opened the decoder")
        XCTAssertGreaterThan(workerCPU, ownCPU, "the frame threads decode; the opening thread reads and waits")
    }

    /// A still picture gains nothing from frame threads: it opens on one thread whatever is asked.
    func testAStillDecodesOnOneThread() throws {
        var limits = DecodeLimits()
        limits.decoderThreads = 2
        // PNG, whose decoder has frame threads (FFmpeg's MJPEG decoder would drop them itself).
        let decoder = try MediaDecoder(source: MediaSource(uri: Fixture.path("odd.png"), relativeTo: "/"), limits: limits)
        defer { decoder.close() }
        XCTAssertTrue(decoder.isStill)
        XCTAssertEqual(decoder.decoderThreads, 1)
    }

    /// A playing stream that spends `heavyBitsPerPixel` or more opens on `heavyPlaybackThreads`
    /// frame threads (issue 33: a heavy story at rest waited on one decode thread); a lighter one,
    /// a still, or a decoder not playing keeps `decoderThreads`. The pictures stay the same:
    /// `testFrameThreadsDecodeTheSamePictures`.
    func testAHeavyStreamPlaysOnFrameThreads() throws {
        func threads(heavyFrom bitsPerPixel: Double, playing: Bool = true, uri: String = Fixture.sample("night.mp4")) throws -> Int {
            var limits = DecodeLimits()
            limits.decoderThreads = 1
            limits.heavyBitsPerPixel = bitsPerPixel
            limits.heavyDecoderThreads = playing ? 2 : nil
            let decoder = try MediaDecoder(source: MediaSource(uri: uri, relativeTo: "/"), limits: limits)
            defer { decoder.close() }
            return decoder.decoderThreads
        }
        XCTAssertEqual(try threads(heavyFrom: 0.0001), 2, "the sample counts as heavy from a tiny threshold")
        XCTAssertEqual(try threads(heavyFrom: 1000), 1, "and as light from a huge one")
        XCTAssertEqual(try threads(heavyFrom: 0.0001, playing: false), 1, "posters and probes keep one thread")
        XCTAssertEqual(try threads(heavyFrom: 0.0001, uri: Fixture.path("odd.png")), 1, "a still keeps one thread")
    }

    /// The threshold in bits per pixel: 5 Mbit/s at 720p30 is light, x264's CRF 18 on noise
    /// (84 Mbit/s) heavy; a stream whose bit rate is unknown is not heavy.
    func testBitsPerPixelDecideWhatIsHeavy() {
        var limits = DecodeLimits()
        limits.decoderThreads = 1
        limits.heavyDecoderThreads = 2
        XCTAssertEqual(limits.decoderThreads(bitRate: 5_000_000, width: 720, height: 1280, frameRate: 30), 1)
        XCTAssertEqual(limits.decoderThreads(bitRate: 84_000_000, width: 720, height: 1280, frameRate: 30), 2)
        XCTAssertEqual(limits.decoderThreads(bitRate: 0, width: 720, height: 1280, frameRate: 30), 1)
        XCTAssertEqual(limits.decoderThreads(bitRate: 84_000_000, width: 720, height: 1280, frameRate: 0), 1)
        limits.heavyDecoderThreads = nil
        XCTAssertEqual(limits.decoderThreads(bitRate: 84_000_000, width: 720, height: 1280, frameRate: 30), 1)
    }
}
