import CFFmpeg
import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import XCTest

// The seam exists in debug builds only (Package.swift).
#if ENABLE_FFMPEG_FAULTS
/// FFmpeg calls made to fail (`FFmpegFaults`): the failure must reach the trace (players) or the
/// caller (the MP4 writer), and every FFmpeg object must be freed.
final class FaultInjectionTests: XCTestCase {
    static let ioError = cffmpeg_averror(EIO)

    override func setUp() {
        FFmpegFaults.reset()
        // Objects of an earlier test's players may still be on their way out.
        XCTAssertTrue(waitForNoFFmpegObjects(), "FFmpeg objects alive before the test: \(alive)")
    }

    override func tearDown() { FFmpegFaults.reset() }

    var alive: [String: Int] {
        ["format": FormatContext.alive.load(ordering: .relaxed), "codec": CodecContext.alive.load(ordering: .relaxed),
         "scale": ScaleContext.alive.load(ordering: .relaxed), "resample": ResampleContext.alive.load(ordering: .relaxed),
         "frame": Frame.alive.load(ordering: .relaxed), "packet": Packet.alive.load(ordering: .relaxed),
         "muxer": MuxerContext.alive.load(ordering: .relaxed)]
    }

    /// Decode threads free their objects as they end, shortly after a render returns.
    func waitForNoFFmpegObjects() -> Bool {
        let end = Date().addingTimeInterval(5)
        while Date() < end {
            if alive.values.allSatisfy({ $0 == 0 }) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    func renderOneStory() throws -> [TraceEvent] {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 0.5,
         "stories": [{"id": "a", "items": [{"uri": "\(Fixture.path("counter.mp4"))"}]}]}
        """)
        return try render(board).trace
    }

    /// Every call of one kind fails (the player and the poster preload both make them, in no
    /// fixed order): the story fails with FFmpeg's message, and nothing is left allocated.
    func testEachDecodingCallFailingFailsTheStoryAndFreesEverything() throws {
        let cases: [(FFmpegCall, String)] = [
            (.openInput, "cannot open"), (.openCodec, "cannot open the decoder"), (.readFrame, "input/output error"),
            (.sendPacket, "no picture could be decoded"), (.scale, "cannot convert the picture"),
        ]
        for (call, expected) in cases {
            FFmpegFaults.reset()
            FFmpegFaults.fail(call, times: .max, with: Self.ioError)
            let events = try renderOneStory()
            FFmpegFaults.reset()
            let failed = events.of(.failed, story: "a")
            XCTAssertEqual(failed.count, 1, "\(call): \(events.map(\.jsonLine))")
            let message = failed.first?.error ?? ""
            XCTAssertTrue(message.localizedCaseInsensitiveContains(expected), "\(call): \(message)")
            XCTAssertTrue(waitForNoFFmpegObjects(), "\(call): alive after the render: \(alive)")
        }
    }

    /// Without faults the same render plays: the failures above come from the injected calls.
    func testWithoutFaultsTheStoryPlays() throws {
        let events = try renderOneStory()
        XCTAssertEqual(events.of(.failed).count, 0)
        XCTAssertEqual(events.of(.firstFrame, story: "a").count, 1)
    }

    /// The second conversion of one decoder fails, and only that one: its error carries the
    /// AVERROR code.
    func testTheNthCallFailsAndOnlyThatOne() throws {
        do {
            let decoder = try MediaDecoder(source: MediaSource(uri: Fixture.path("counter.mp4"), relativeTo: "/"),
                                           limits: DecodeLimits())
            defer { decoder.close() }
            FFmpegFaults.fail(.scale, nth: 2, with: Self.ioError)
            let first = try XCTUnwrap(try decoder.nextPicture())
            XCTAssertNoThrow(try decoder.rgba(first, width: 72, height: 128))
            let second = try XCTUnwrap(try decoder.nextPicture())
            XCTAssertThrowsError(try decoder.rgba(second, width: 72, height: 128)) { error in
                XCTAssertEqual((error as? MediaError)?.ffmpegError?.code, Self.ioError, "\(error)")
            }
            XCTAssertNoThrow(try decoder.rgba(second, width: 72, height: 128), "only the second call fails")
        }
        XCTAssertTrue(waitForNoFFmpegObjects(), "alive once the decoder and its pictures are gone: \(alive)")
    }

    func makeWriter(_ folder: ScratchFolder) throws -> ClipWriter {
        try ClipWriter(options: ClipOptions(path: folder.file("clip.mp4")), width: 64, height: 64, fps: 10)
    }

    /// The muxer's set-up calls failing: the writer throws FFmpeg's error, leaves no file and
    /// frees its muxer, encoders and frames (the muxer used to leak here).
    func testTheMP4WriterThrowsWhenSettingUpFailsAndLeaksNothing() throws {
        let cases: [(FFmpegCall, Int, String)] = [
            (.openCodec, 1, "cannot open libx264"), (.openCodec, 2, "cannot open the AAC encoder"),
            (.openOutput, 1, "cannot write"), (.writeHeader, 1, "cannot start the MP4"),
        ]
        for (call, nth, expected) in cases {
            let folder = ScratchFolder()
            FFmpegFaults.reset()
            FFmpegFaults.fail(call, nth: nth, with: Self.ioError)
            XCTAssertThrowsError(try makeWriter(folder)) { error in
                let error = error as? MediaError
                XCTAssertTrue(error?.message.hasPrefix(expected) == true, "\(call) \(nth): \(String(describing: error))")
                XCTAssertEqual(error?.ffmpegError?.code, Self.ioError)
            }
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "\(call) \(nth)")
            XCTAssertTrue(waitForNoFFmpegObjects(), "\(call) \(nth): alive: \(alive)")
        }
    }

    /// A packet write failing mid-clip reaches the caller, and the half-written file goes.
    func testAFailedPacketWriteReachesTheCaller() throws {
        let folder = ScratchFolder()
        do {
            let writer = try makeWriter(folder)
            FFmpegFaults.fail(.writeFrame, nth: 1, with: Self.ioError)
            let frame = RGBAImage(width: 64, height: 64, fill: .black)
            XCTAssertThrowsError(try {
                for index in 0..<30 { try writer.append(frame: frame, index: index) }
                try writer.finish()
            }()) { error in
                XCTAssertEqual((error as? MediaError)?.message, "cannot write to the MP4")
                XCTAssertEqual((error as? MediaError)?.ffmpegError?.code, Self.ioError)
            }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
        XCTAssertTrue(waitForNoFFmpegObjects(), "alive: \(alive)")
    }

    /// A missing encoder is said to be missing, not a failure to write.
    func testAMissingEncoderIsNotReportedAsAWriteFailure() {
        let error = RenderError.clip(MediaError(.missingEncoder, "this FFmpeg has no libx264 encoder"))
        XCTAssertEqual(error.description, "cannot make the MP4: this FFmpeg has no libx264 encoder")
        XCTAssertEqual(RenderError.clip(MediaError(.open, "cannot write x")).message, "cannot write the MP4")
        XCTAssertTrue(error.cause is MediaError)
    }
}
#endif
