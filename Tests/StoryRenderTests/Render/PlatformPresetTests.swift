import Foundation
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

/// The comparison behind `check-preset`, on files described by hand.
final class PlatformPresetTests: XCTestCase {
    /// A file that holds to every limit of `preset`.
    func conforming(_ preset: PlatformPreset) -> ProbedFile {
        var file = ProbedFile()
        file.formatName = "mov,mp4,m4a,3gp,3g2,mj2"
        file.duration = 10
        file.sizeBytes = 5_000_000
        var video = ProbedFile.Stream()
        video.type = "video"
        video.codec = "h264"
        video.profile = "High"
        video.width = preset.width
        video.height = preset.height
        video.pixelFormat = "yuv420p"
        video.fieldOrder = "progressive"
        video.frameRate = 30
        video.bitRate = 4_000_000
        var audio = ProbedFile.Stream()
        audio.type = "audio"
        audio.codec = "aac"
        audio.sampleRate = 48_000
        audio.channels = 2
        file.streams = [video, audio]
        file.longestGOP = 15
        return file
    }

    func testAConformingFileBreaksNothing() {
        for preset in PlatformPreset.all {
            XCTAssertEqual(preset.violations(of: conforming(preset)), [], preset.name)
        }
    }

    func testEachLimitIsNamed() {
        var file = conforming(.stories)
        file.formatName = "matroska,webm"
        file.duration = 75
        file.sizeBytes = 150_000_000
        file.streams[0].codec = "vp9"
        file.streams[0].bitRate = 30_000_000
        file.streams[0].fieldOrder = "tt"
        file.streams[1].channels = 6
        let limits = PlatformPreset.stories.violations(of: file).map(\.limit)
        XCTAssertEqual(limits, ["container", "codec", "scan", "video bit rate", "audio channels", "duration", "file size"])
        let messages = PlatformPreset.stories.violations(of: file).map(\.description)
        XCTAssertTrue(messages.contains("video bit rate: 30.0 Mbit/s, stories allows at most 25.0"), "\(messages)")
        XCTAssertTrue(messages.contains("duration: 75 s, stories needs 3 to 60 s"), "\(messages)")
        XCTAssertTrue(messages.contains("codec: vp9, stories needs h264 or hevc"), "\(messages)")
    }

    func testShortsGOPIsHalfTheFrameRate() {
        var file = conforming(.shorts)
        file.longestGOP = 16
        XCTAssertEqual(PlatformPreset.shorts.violations(of: file).map(\.description),
                       ["GOP: 16 frames from keyframe to keyframe, shorts needs at most 15 (half the frame rate)"])
        XCTAssertEqual(PlatformPreset.reels.violations(of: conforming(.reels)).count, 0, "Meta publishes no GOP length")
    }

    func testMetaTakesHEVCAndTheOthersDoNot() {
        var file = conforming(.reels)
        file.streams[0].codec = "hevc"
        file.streams[0].profile = "Main"
        XCTAssertEqual(PlatformPreset.reels.violations(of: file), [], "the Graph API takes HEVC for Reels")
        XCTAssertEqual(PlatformPreset.shorts.violations(of: file).map(\.description), ["codec: hevc, shorts needs h264"])
    }

    func testAFileWithoutVideoIsToldSo() {
        var file = conforming(.tiktok)
        file.streams.removeFirst()
        XCTAssertEqual(PlatformPreset.tiktok.violations(of: file).map(\.limit), ["video"])
    }

    func testLongestGOPCountsTheLastOne() {
        XCTAssertEqual(ProbedFile.longestGOP(packetFlags: "K__\n___\n___\nK__\n___\n"), 3)
        XCTAssertEqual(ProbedFile.longestGOP(packetFlags: "K__\n___\nK__\n___\n___\n___\n"), 4)
        XCTAssertNil(ProbedFile.longestGOP(packetFlags: ""))
    }
    /// A phone's portrait clip: stored 1920x1080, its display matrix turning it a quarter
    /// (ffprobe's `side_data_list`, as FFmpeg 5.1 writes it). The shown size is what counts.
    func testTheShownSizeOfATurnedVideoIsChecked() throws {
        let json = """
        {"format": {"format_name": "mov,mp4,m4a,3gp,3g2,mj2", "duration": "10.0"},
         "streams": [{"codec_type": "video", "codec_name": "h264", "profile": "High", "width": 1920, "height": 1080,
                      "pix_fmt": "yuv420p", "avg_frame_rate": "30/1",
                      "side_data_list": [{"side_data_type": "Display Matrix", "rotation": -90}]}]}
        """
        let file = try ProbedFile(ffprobeJSON: Data(json.utf8))
        let video = try XCTUnwrap(file.video)
        XCTAssertEqual([video.width, video.height, video.rotation], [1920, 1080, -90])
        XCTAssertEqual([video.shownWidth, video.shownHeight], [1080, 1920])
        XCTAssertEqual(PlatformPreset.reels.violations(of: file), [])
        var landscape = file
        landscape.streams[0].width = 1080
        landscape.streams[0].height = 1920
        XCTAssertEqual(PlatformPreset.reels.violations(of: landscape).map(\.description),
                       ["size: 1920x1080 as shown (stored 1080x1920, turned a quarter by its display matrix), reels needs 1080x1920"])
    }

    /// Older files carry the turn as a `rotate` tag only; a half turn keeps the size.
    func testARotateTagAndAHalfTurn() throws {
        let tagged = try ProbedFile(ffprobeJSON: Data("""
        {"streams": [{"codec_type": "video", "width": 1920, "height": 1080, "tags": {"rotate": "90"}}]}
        """.utf8))
        XCTAssertEqual([tagged.video?.shownWidth, tagged.video?.shownHeight], [1080, 1920])
        let half = try ProbedFile(ffprobeJSON: Data("""
        {"streams": [{"codec_type": "video", "width": 1080, "height": 1920, "side_data_list": [{"rotation": 180}]}]}
        """.utf8))
        XCTAssertEqual([half.video?.shownWidth, half.video?.shownHeight], [1080, 1920])
    }
}
