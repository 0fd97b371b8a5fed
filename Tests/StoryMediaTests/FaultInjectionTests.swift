import CFFmpeg
import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
@testable import StoryEncode
import StoryPlayerTestSupport
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
         "muxer": MuxerContext.alive.load(ordering: .relaxed), "filter": FilterGraph.alive.load(ordering: .relaxed),
         "page": FeedPageStream.alive.load(ordering: .relaxed), "loudness": LoudnessMeter.alive.load(ordering: .relaxed)]
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
            (.createMuxer, 1, "cannot create an MP4 muxer"), (.configureCodec, 1, "cannot allocate an encoder"),
            (.createMuxer, 2, "cannot add the video stream"), (.createMuxer, 3, "cannot add the audio stream"),
            (.frameBuffer, 1, "cannot allocate a video frame"), (.frameBuffer, 2, "cannot allocate an audio frame"),
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

    // MARK: - The calls the owners' methods added to the seam (issue 29, item 2)

    func decoder(_ fixture: String) throws(MediaError) -> MediaDecoder {
        try MediaDecoder(source: MediaSource(uri: Fixture.path(fixture), relativeTo: "/"), limits: DecodeLimits())
    }

    /// Checks that `error` is a `MediaError` whose message starts with `expected` and that
    /// carries the injected code.
    func assertInjected(_ error: any Error, _ expected: String, _ call: FFmpegCall, file: StaticString = #filePath, line: UInt = #line) {
        let error = error as? MediaError
        XCTAssertTrue(error?.message.hasPrefix(expected) == true, "\(call): \(String(describing: error))", file: file, line: line)
        XCTAssertEqual(error?.ffmpegError?.code, Self.ioError, "\(call): \(String(describing: error))", file: file, line: line)
    }

    /// Each call of the decoding path failing on every call: opening the decoder, finding the
    /// video stream, receiving frames, cropping and setting up the scaler each fail the story
    /// with their own message (the player and the poster preload both make them).
    func testEachNewDecodingCallFailingFailsTheStoryAndFreesEverything() throws {
        let cases: [(FFmpegCall, String)] = [
            (.findBestStream, "no video stream"), (.configureCodec, "cannot configure the decoder"),
            (.receiveFrame, "cannot decode a frame"), (.crop, "cannot crop the picture"),
            (.scaleContext, "cannot convert pixel format"),
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

    /// `avformat_find_stream_info` (a Matroska file's header does not say everything, so it is
    /// read), `avformat_seek_file` and the padded frame of a turned picture
    /// (`av_frame_get_buffer`), each failing once, throw from the decoder with their code.
    func testStreamInfoSeekAndFrameBufferFailuresReachTheCaller() throws {
        FFmpegFaults.fail(.findStreamInfo, with: Self.ioError)
        XCTAssertThrowsError(try decoder("tenbit.mkv")) { assertInjected($0, "cannot read stream information", .findStreamInfo) }
        XCTAssertTrue(waitForNoFFmpegObjects(), "findStreamInfo: alive: \(alive)")

        FFmpegFaults.reset()
        do {
            let counter = try decoder("counter.mp4")
            defer { counter.close() }
            FFmpegFaults.fail(.seek, with: Self.ioError)
            XCTAssertThrowsError(try counter.seek(to: 0.2)) { assertInjected($0, "cannot seek to 0.2 s", .seek) }
            XCTAssertNoThrow(try counter.seek(to: 0.2), "only the first seek fails")
        }
        XCTAssertTrue(waitForNoFFmpegObjects(), "seek: alive: \(alive)")

        FFmpegFaults.reset()
        do {
            // Turned a quarter (its display matrix), so swscale writes a padded frame first.
            let rotated = try decoder("rotated.mp4")
            defer { rotated.close() }
            let picture = try XCTUnwrap(try rotated.nextPicture())
            XCTAssertEqual(picture.quarterTurns % 2, 1)
            FFmpegFaults.fail(.frameBuffer, with: Self.ioError)
            XCTAssertThrowsError(try rotated.rgba(picture, width: 72, height: 128)) { assertInjected($0, "cannot allocate a", .frameBuffer) }
            XCTAssertNoThrow(try rotated.rgba(picture, width: 72, height: 128))
        }
        XCTAssertTrue(waitForNoFFmpegObjects(), "frameBuffer: alive: \(alive)")
    }

    /// An item's sound: no audio stream found, no resampler, a decoder that gives no frames, and
    /// `swr_convert` failing each throw from `ItemAudio` with their code, and free it all.
    func testItemAudioCallsFailingReachTheCaller() throws {
        let source = MediaSource(uri: Fixture.path("tone.m4a"), relativeTo: "/")
        for (call, expected) in [(FFmpegCall.findBestStream, "no audio stream"), (.openResampler, "cannot set up the resampler")] {
            FFmpegFaults.reset()
            FFmpegFaults.fail(call, with: Self.ioError)
            XCTAssertThrowsError(try ItemAudio(source: source, limits: DecodeLimits())) { assertInjected($0, expected, call) }
            XCTAssertTrue(waitForNoFFmpegObjects(), "\(call): alive: \(alive)")
        }
        for (call, expected) in [(FFmpegCall.receiveFrame, "cannot decode the sound"), (.resample, "cannot resample the sound")] {
            FFmpegFaults.reset()
            do {
                let audio = try ItemAudio(source: source, limits: DecodeLimits())
                defer { audio.close() }
                FFmpegFaults.fail(call, times: .max, with: Self.ioError)
                XCTAssertThrowsError(try audio.nextBlock()) { assertInjected($0, expected, call) }
            }
            XCTAssertTrue(waitForNoFFmpegObjects(), "\(call): alive: \(alive)")
        }
    }

    /// An HDR picture's filter graph: libavfilter failing to load, the graph failing to
    /// configure, or a picture failing to go through it throws from the conversion, and the
    /// graph is freed with the decoder.
    func testToneMappingCallsFailingReachTheCaller() throws {
        let folder = ScratchFolder()
        let clip = try HDRMedia.clip(transfer: "arib-std-b67", in: folder)
        for (call, expected) in [(FFmpegCall.loadFilters, "cannot load libavfilter.so."),
                                 (.configureFilters, "cannot configure the filters"), (.filter, "cannot filter the picture")] {
            FFmpegFaults.reset()
            do {
                let hdr = try MediaDecoder(source: MediaSource(uri: clip, relativeTo: "/"), limits: DecodeLimits())
                defer { hdr.close() }
                let picture = try XCTUnwrap(try hdr.nextPicture())
                FFmpegFaults.fail(call, with: Self.ioError)
                XCTAssertThrowsError(try hdr.rgba(picture, width: 72, height: 128)) { assertInjected($0, expected, call) }
                XCTAssertNoThrow(try hdr.rgba(picture, width: 72, height: 128), "\(call): only the first call fails")
            }
            XCTAssertTrue(waitForNoFFmpegObjects(), "\(call): alive: \(alive)")
        }
    }

    /// A HEIC photo: libheif failing to read the file or to decode the picture throws with the
    /// code, as any source that cannot be read.
    func testHEIFCallsFailingReachTheCaller() throws {
        let folder = ScratchFolder()
        let photo = folder.file("quadrants.heic")
        try HEIFWriter.writeQuadrants(to: photo, orientation: 1)
        let source = MediaSource(uri: photo, relativeTo: "/")
        FFmpegFaults.fail(.readHEIF, with: Self.ioError)
        XCTAssertThrowsError(try MediaDecoder(source: source, limits: DecodeLimits())) {
            assertInjected($0, "cannot read the HEIF photo", .readHEIF)
        }
        FFmpegFaults.reset()
        do {
            let heif = try MediaDecoder(source: source, limits: DecodeLimits())
            defer { heif.close() }
            FFmpegFaults.fail(.decodeHEIF, with: Self.ioError)
            XCTAssertThrowsError(try heif.nextPicture()) { assertInjected($0, "cannot decode the HEIF photo", .decodeHEIF) }
        }
        XCTAssertTrue(waitForNoFFmpegObjects(), "alive: \(alive)")
    }

    /// A feed page (or a manifest, or a remote photo): `avio_open2` and `avio_read` failing
    /// throw with the code, and the stream is closed.
    func testFeedPageCallsFailingReachTheCaller() throws {
        let servers = ServerSet()
        defer { servers.stopAll() }
        let root = ScratchFolder()
        _ = root.write("page.json", Array("{\"stories\": []}".utf8))
        let url = try servers.httpServer(root: root.path) + "/page.json"
        for (call, expected) in [(FFmpegCall.openPage, "cannot open"), (.readPage, "cannot read")] {
            FFmpegFaults.reset()
            FFmpegFaults.fail(call, with: Self.ioError)
            XCTAssertThrowsError(try FeedPageStream.download(url, timeout: 5, limit: 1 << 20)) { assertInjected($0, expected, call) }
            XCTAssertEqual(FeedPageStream.alive.load(ordering: .relaxed), 0, "\(call)")
        }
        FFmpegFaults.reset()
        XCTAssertEqual(try FeedPageStream.download(url, timeout: 5, limit: 1 << 20).count, 15, "without faults the page comes")
    }

    /// The MP4 writer mid-clip: the encoder refusing a frame or giving no packet, the picture
    /// frame that cannot be made writable, and the trailer or the file's closing failing each
    /// reach the caller, and the half-written file goes. No scaler is the APNG's (RGB): an MP4's
    /// 4:2:0 picture is converted without swscale (`EncoderSteps.fill`).
    func testTheMP4WritersLaterCallsFailingReachTheCaller() throws {
        let cases: [(FFmpegCall, String, ExportFormat)] = [
            (.sendFrame, "cannot encode", .mp4H264), (.receivePacket, "cannot encode", .mp4H264),
            (.makeWritable, "cannot convert a frame for the MP4", .mp4H264),
            (.scaleContext, "cannot convert a frame for the APNG", .apng), (.writeTrailer, "cannot finish the MP4", .mp4H264),
            (.closeOutput, "cannot close the MP4", .mp4H264),
        ]
        for (call, expected, format) in cases {
            let folder = ScratchFolder()
            FFmpegFaults.reset()
            do {
                let writer = try ClipWriter(options: ClipOptions(path: folder.file("clip.\(format.fileExtension)"), format: format),
                                            width: 64, height: 64, fps: 10)
                FFmpegFaults.fail(call, times: .max, with: Self.ioError)
                let frame = RGBAImage(width: 64, height: 64, fill: .black)
                XCTAssertThrowsError(try {
                    for index in 0..<30 { try writer.append(frame: frame, index: index) }
                    try writer.finish()
                }()) { error in
                    XCTAssertEqual((error as? MediaError)?.message, expected, "\(call)")
                    XCTAssertNotNil((error as? MediaError)?.ffmpegError, "\(call): \(error)")
                }
            }
            FFmpegFaults.reset()
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "\(call)")
            XCTAssertTrue(waitForNoFFmpegObjects(), "\(call): alive: \(alive)")
        }
    }

    /// The loudness meter (`--loudness`): its graph failing to configure, or sound failing to go
    /// through it, throws with the code and frees the meter; in a render, the MP4 is not written
    /// and the render says why.
    func testLoudnessMeterCallsFailingReachTheCaller() throws {
        FFmpegFaults.fail(.loadFilters, with: Self.ioError)
        XCTAssertThrowsError(try LoudnessMeter()) { assertInjected($0, "cannot load libavfilter.so.", .loadFilters) }
        FFmpegFaults.reset()
        FFmpegFaults.fail(.configureFilters, with: Self.ioError)
        XCTAssertThrowsError(try LoudnessMeter()) { assertInjected($0, "cannot configure the loudness meter", .configureFilters) }
        FFmpegFaults.reset()
        do {
            let meter = try LoudnessMeter()
            FFmpegFaults.fail(.filter, with: Self.ioError)
            let tone = [Float](repeating: 0.1, count: 9600)
            XCTAssertThrowsError(try tone.withUnsafeBufferPointer { try meter.add($0) }) {
                assertInjected($0, "cannot measure the loudness", .filter)
            }
        }
        XCTAssertTrue(waitForNoFFmpegObjects(), "alive: \(alive)")

        let folder = ScratchFolder()
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 1,
         "stories": [{"id": "a", "items": [{"uri": "\(Fixture.sample("beach.mp4"))"}]}]}
        """)
        FFmpegFaults.reset()
        FFmpegFaults.fail(.filter, nth: 3, with: Self.ioError)
        XCTAssertThrowsError(try render(board, into: folder) { options in
            options.writeFrames = false
            options.clip = ClipOptions(path: folder.file("clip.mp4"))
            options.loudness = .ebu
        }) { error in
            XCTAssertTrue("\(error)".contains("cannot write the MP4: cannot measure the loudness"), "\(error)")
        }
        FFmpegFaults.reset()
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("clip.mp4")), "no MP4")
        XCTAssertTrue(waitForNoFFmpegObjects(), "alive: \(alive)")
    }

    /// Every call a test can fail is one some test above fails (so a new case comes with its test).
    func testEveryCallHasATest() throws {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        for call in FFmpegCall.allCases {
            XCTAssertTrue(source.contains("(.\(call),") || source.contains("FFmpegCall.\(call),") || source.contains("fail(.\(call),"),
                          "no test fails .\(call)")
        }
    }

    /// A GIF's filters failing, as they are set up or as the second frame goes in: the
    /// writer throws FFmpeg's error, leaves no file and frees its graph, muxer and encoder.
    func testTheGIFWriterThrowsWhenItsFiltersFailAndLeaksNothing() throws {
        let picture = RGBAImage(width: 64, height: 64, fill: .black)
        for (call, nth, expected) in [(FFmpegCall.configureFilters, 1, "cannot configure the filters"),
                                      (.filter, 3, "cannot filter a frame for the GIF")] {
            let folder = ScratchFolder()
            FFmpegFaults.reset()
            FFmpegFaults.fail(call, nth: nth, with: Self.ioError)
            XCTAssertThrowsError(try {
                var options = ClipOptions(path: folder.file("story.gif"), format: .gif)
                options.animationWidth = 32
                let writer = try ClipWriter(options: options, width: 64, height: 64, fps: 10)
                for index in 0..<3 { try writer.append(frame: picture, index: index) }
                try writer.finish()
            }()) { error in
                let error = error as? MediaError
                XCTAssertTrue(error?.message.hasPrefix(expected) == true, "\(call) \(nth): \(String(describing: error))")
                XCTAssertEqual(error?.ffmpegError?.code, Self.ioError)
            }
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "\(call) \(nth)")
            XCTAssertTrue(waitForNoFFmpegObjects(), "\(call) \(nth): alive: \(alive)")
        }
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
