import CFFmpeg
import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryEncode
import StoryPlayerTestSupport
import XCTest

/// The MP4 clip, decoded again with libavformat.
final class ClipTests: XCTestCase {
    /// Video packets, size and duration of an MP4, read with libavformat.
    func inspect(_ path: String) throws -> (frames: Int, width: Int, height: Int, duration: Double, hasAudio: Bool) {
        var context: UnsafeMutablePointer<AVFormatContext>?
        XCTAssertEqual(avformat_open_input(&context, path, nil, nil), 0)
        defer { avformat_close_input(&context) }
        XCTAssertGreaterThanOrEqual(avformat_find_stream_info(context, nil), 0)
        let videoIndex = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        let audioIndex = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        let parameters = context!.pointee.streams[Int(videoIndex)]!.pointee.codecpar!
        var frames = 0
        let packet = av_packet_alloc()
        var owned = packet
        defer { av_packet_free(&owned) }
        while av_read_frame(context, packet) >= 0 {
            if packet!.pointee.stream_index == videoIndex { frames += 1 }
            av_packet_unref(packet)
        }
        return (frames, Int(parameters.pointee.width), Int(parameters.pointee.height),
                Double(context!.pointee.duration) / Double(cffmpeg_time_base()), audioIndex >= 0)
    }

    /// RMS level in dB (full scale) of a stretch of a file's sound, as the renderer decodes it.
    func level(_ path: String, from start: Double, seconds: Double) throws -> Double {
        let audio = try ItemAudio(source: MediaSource(uri: path, relativeTo: "/"), limits: DecodeLimits())
        defer { audio.close() }
        let samples = audio.samples(from: start, count: Int(seconds * Double(ItemAudio.rate)))
        let power = samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(samples.count)
        return 10 * log10(power)
    }

    func testMP4HasTheFramesAndTheMixedSound() throws {
        let output = ScratchFolder()
        // Two stories with tones of the same level (440 Hz and 523 Hz); a 1 s cube turn from 1 s.
        let board = try Storyboard.parse("""
        {"canvas": {"width": 96, "height": 160, "fps": 10}, "duration": 2.5, "transition": {"duration": 1.0},
         "stories": [{"id": "a", "items": [{"uri": "\(Fixture.sample("beach.mp4"))"}]},
                     {"id": "b", "items": [{"uri": "\(Fixture.sample("city.mp4"))"}]}],
         "script": [{"at": 1.0, "action": "swipe", "direction": "next"}]}
        """)
        try render(board, into: output) { options in
            options.writeFrames = false
            options.clip = ClipOptions(path: output.file("clip.mp4"))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: StoryRenderer.framePath(output.path, 0)), "--no-png")

        let clip = try inspect(output.file("clip.mp4"))
        XCTAssertEqual(clip.frames, 25)
        XCTAssertEqual(clip.width, 96)
        XCTAssertEqual(clip.height, 160)
        XCTAssertEqual(clip.duration, 2.5, accuracy: 0.1)
        XCTAssertTrue(clip.hasAudio)

        let source = try level(Fixture.sample("beach.mp4"), from: 0.3, seconds: 0.5)
        let other = try level(Fixture.sample("city.mp4"), from: 0.3, seconds: 0.5)
        XCTAssertEqual(source, other, accuracy: 0.5, "the two tones are equally loud")
        // Story a alone, before the swipe.
        let solo = try level(output.file("clip.mp4"), from: 0.3, seconds: 0.5)
        XCTAssertEqual(solo, source, accuracy: 1, "a solo section keeps the source's level")
        // Halfway through the turn (f = 0.5 at 1 + (1 − ∛½) s with the ease-out), each story is
        // heard at half its level: two uncorrelated tones at gain ½ mix to 3 dB below one.
        let middle = 1.0 + (1 - pow(0.5, 1.0 / 3))
        let mixed = try level(output.file("clip.mp4"), from: middle - 0.02, seconds: 0.04)
        XCTAssertEqual(mixed, source + 20 * log10(sqrt(0.5)), accuracy: 1, "the midpoint is the mix")
        // After the turn, story b alone.
        XCTAssertEqual(try level(output.file("clip.mp4"), from: 2.1, seconds: 0.3), other, accuracy: 1)
    }

    func testHeldItemsAreSilentAndPhotosAddSilence() throws {
        let output = ScratchFolder()
        let board = try Storyboard.parse("""
        {"canvas": {"width": 96, "height": 160, "fps": 10}, "duration": 2.0,
         "stories": [{"id": "a", "items": [{"uri": "\(Fixture.sample("beach.mp4"))", "duration": 1}, {"uri": "\(Fixture.sample("sunset.jpg"))"}]}],
         "script": [{"at": 0.2, "action": "hold", "for": 0.5}]}
        """)
        try render(board, into: output) { options in
            options.writeFrames = false
            options.clip = ClipOptions(path: output.file("clip.mp4"))
        }
        let playing = try level(output.file("clip.mp4"), from: 0.0, seconds: 0.15)
        let held = try level(output.file("clip.mp4"), from: 0.3, seconds: 0.3)
        let photo = try level(output.file("clip.mp4"), from: 1.6, seconds: 0.3)
        XCTAssertGreaterThan(playing, -40)
        XCTAssertLessThan(held, playing - 30, "a held item is silent")
        XCTAssertLessThan(photo, playing - 30, "a photo has no sound")
    }

    func testOddCanvasIsRefusedForMP4() throws {
        let board = try Storyboard.parse(#"{"canvas": {"width": 95, "height": 160}, "duration": 0.1, "stories": [{"items": [{"uri": "Fixtures/odd.png"}]}]}"#)
        let output = ScratchFolder()
        XCTAssertThrowsError(try render(board, into: output) { $0.clip = ClipOptions(path: output.file("clip.mp4")) }) { error in
            XCTAssertTrue("\(error)".contains("even width and height"), "\(error)")
        }
    }
}
