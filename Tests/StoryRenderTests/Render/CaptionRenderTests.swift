import Compositor
import Foundation
import StoryEncode
import StoryMedia
import StoryModel
import StoryPlayback
import StoryRender
import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// Captions in the rendered frames: white caption text where the cue is, at its cue times and
/// not outside them, in a whole render, in a shard (byte for byte the same frames) and in `still`.
final class CaptionRenderTests: XCTestCase {
    /// A dark photo (no white anywhere) and its captions, 180x320 at 10 fps, no overlay.
    func board(_ folder: ScratchFolder, captionsJSON: String, items: Int = 1, itemSeconds: Double = 3) throws -> Storyboard {
        let photo = RGBAImage(width: 180, height: 320, fill: RGBAColor(red: 20, green: 30, blue: 60))
        try photo.writePNG(to: folder.file("dark.png"))
        let itemList = (0..<items).map { _ in #"{"uri": "dark.png", "duration": \#(itemSeconds)}"# }.joined(separator: ", ")
        return try Storyboard(json: Data("""
        {"canvas": {"width": 180, "height": 320, "fps": 10}, "stories": [{"id": "talk", \(captionsJSON) "items": [\(itemList)]}]}
        """.utf8), folder: folder.path)
    }

    /// How many near-white pixels the frame has in the caption's band (a third of the canvas
    /// above the default margin, 20 % from the bottom), and anywhere.
    func whitePixels(_ path: String) throws -> (band: Int, all: Int) {
        let image = try RGBAImage(contentsOfPNG: path)
        var band = 0, all = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let i = (y * image.width + x) * 4
                guard image.pixels[i] > 230, image.pixels[i + 1] > 230, image.pixels[i + 2] > 230 else { continue }
                all += 1
                if y > 180 && y < 260 { band += 1 }
            }
        }
        return (band, all)
    }

    func testAnItemsCaptionShowsAtItsCueTimesOnlyAndAShardDrawsTheSameFrames() throws {
        let folder = ScratchFolder()
        _ = folder.write("talk.srt", Array("1\n00:00:01,000 --> 00:00:02,000\nHello <b>there</b>\n".utf8))
        var board = try board(folder, captionsJSON: "")
        board.stories[0].items[0].captions = folder.file("talk.srt")
        let (summary, _, out) = try render(board) { $0.overlay = false }
        XCTAssertEqual(summary.frames, 30)
        for n in 0..<30 {
            let white = try whitePixels(StoryRenderer.framePath(out.path, n))
            if (10..<20).contains(n) {
                XCTAssertGreaterThan(white.band, 5, "frame \(n) (\(Double(n) / 10) s) shows the cue")
                XCTAssertEqual(white.band, white.all, "frame \(n): the caption is in its band")
            } else {
                XCTAssertEqual(white.all, 0, "frame \(n) (\(Double(n) / 10) s) is outside the cue")
            }
        }
        // A shard across the cue's start and end: the same bytes.
        let (shard, _, shardFolder) = try render(board) {
            $0.overlay = false
            $0.frameRange = 8..<22
        }
        XCTAssertEqual(shard.frames, 14)
        for n in 8..<22 {
            let whole = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(out.path, n)))
            let piece = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(shardFolder.path, n)))
            XCTAssertEqual(whole, piece, "frame \(n) of the shard")
        }
    }

    /// A story's captions run on the story's time: a cue at 1.2–1.8 s shows on its second 1 s item.
    func testAStorysCaptionsFollowTheStorysTimeAcrossItsItems() throws {
        let folder = ScratchFolder()
        _ = folder.write("story.vtt", Array("WEBVTT\n\n00:01.200 --> 00:01.800\nSecond item\n".utf8))
        let board = try board(folder, captionsJSON: #""captions": "story.vtt","#, items: 2, itemSeconds: 1)
        let (summary, _, out) = try render(board) { $0.overlay = false }
        XCTAssertEqual(summary.frames, 20)
        for n in 0..<20 {
            let white = try whitePixels(StoryRenderer.framePath(out.path, n))
            if (12..<18).contains(n) {
                XCTAssertGreaterThan(white.band, 5, "frame \(n)")
            } else {
                XCTAssertEqual(white.all, 0, "frame \(n)")
            }
        }
        // A shard that starts on the second item knows how long the first played.
        let (_, _, shard) = try render(board) {
            $0.overlay = false
            $0.frameRange = 11..<19
        }
        for n in 11..<19 {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(out.path, n))),
                           try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(shard.path, n))), "frame \(n) of the shard")
        }
    }

    /// Mid-turn the caption is drawn on its story's face (the decorated copy), so it turns with
    /// the cube; the next story, without captions, shows none once the turn has landed.
    func testACaptionTurnsWithItsStory() throws {
        let folder = ScratchFolder()
        _ = folder.write("a.vtt", Array("WEBVTT\n\n00:00.000 --> 00:03.000\nFirst story\n".utf8))
        try RGBAImage(width: 180, height: 320, fill: RGBAColor(red: 20, green: 30, blue: 60)).writePNG(to: folder.file("dark.png"))
        let board = try Storyboard(json: Data("""
        {"canvas": {"width": 180, "height": 320, "fps": 10}, "duration": 1.5,
         "stories": [{"id": "a", "captions": "a.vtt", "items": [{"uri": "dark.png", "duration": 3}]},
                     {"id": "b", "items": [{"uri": "dark.png", "duration": 3}]}],
         "script": [{"at": 0.5, "action": "swipe", "direction": "next"}]}
        """.utf8), folder: folder.path)
        var uncaptioned = board
        uncaptioned.stories[0].captions = nil
        let (_, _, out) = try render(board) { $0.overlay = false }
        let (_, _, plain) = try render(uncaptioned) { $0.overlay = false }
        let frame = { (folder: ScratchFolder, n: Int) in try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(folder.path, n))) }
        XCTAssertGreaterThan(try whitePixels(StoryRenderer.framePath(out.path, 2)).band, 5, "at rest on the first story")
        // The turning face is shaded, so its caption is no longer white: it is there all the same.
        XCTAssertNotEqual(try frame(out, 6), try frame(plain, 6), "mid-turn, on the first story's face")
        XCTAssertEqual(try frame(out, 12), try frame(plain, 12), "landed on the second story, which has none")
    }

    /// A player's picture lent for a turning face is given back as it was: the caption goes on a
    /// copy, so once the cue has ended and the drag has gone back, the story at rest shows none.
    func testACaptionIsNeverLeftOnAPlayersPicture() throws {
        let folder = ScratchFolder()
        _ = folder.write("a.vtt", Array("WEBVTT\n\n00:00.000 --> 00:00.700\nFirst story\n".utf8))
        try RGBAImage(width: 180, height: 320, fill: RGBAColor(red: 20, green: 30, blue: 60)).writePNG(to: folder.file("dark.png"))
        let board = try Storyboard(json: Data("""
        {"canvas": {"width": 180, "height": 320, "fps": 10}, "duration": 2,
         "stories": [{"id": "a", "captions": "a.vtt", "items": [{"uri": "dark.png", "duration": 3}]},
                     {"id": "b", "items": [{"uri": "dark.png", "duration": 3}]}],
         "script": [{"at": 0.3, "action": "drag", "to": 0.3, "over": 0.2}, {"at": 0.8, "action": "release"}]}
        """.utf8), folder: folder.path)
        let (_, _, out) = try render(board) { $0.overlay = false }
        XCTAssertGreaterThan(try whitePixels(StoryRenderer.framePath(out.path, 1)).band, 5, "the cue, at rest")
        for n in 15..<20 {
            XCTAssertEqual(try whitePixels(StoryRenderer.framePath(out.path, n)).all, 0, "frame \(n): back at rest after the cue")
        }
    }

    /// A story whose media fails shows its error card, without its caption over it.
    func testAFailedStoryShowsNoCaption() throws {
        let folder = ScratchFolder()
        _ = folder.write("a.vtt", Array("WEBVTT\n\n00:00.000 --> 00:01.000\nNot here\n".utf8))
        var board = try Storyboard(json: Data("""
        {"canvas": {"width": 180, "height": 320, "fps": 10}, "duration": 0.5,
         "stories": [{"id": "a", "captions": "a.vtt", "items": [{"uri": "gone.png", "duration": 1}]}]}
        """.utf8), folder: folder.path)
        let (_, _, out) = try render(board) { $0.overlay = false }
        board.stories[0].captions = nil
        let (_, _, plain) = try render(board) { $0.overlay = false }
        for n in 0..<5 {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(out.path, n))),
                           try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(plain.path, n))), "frame \(n)")
        }
    }

    /// `still` draws the caption of its time, and the guides only when asked.
    func testStillDrawsTheCaptionAndTheGuides() throws {
        let folder = ScratchFolder()
        _ = folder.write("talk.vtt", Array("WEBVTT\n\n00:01.000 --> 00:02.000\nHello\n".utf8))
        let board = try board(folder, captionsJSON: #""captions": "talk.vtt","#)
        let during = try StillRender.render(board, pageOffset: 0, time: 1.5, overlay: false).image
        let before = try StillRender.render(board, pageOffset: 0, time: 0.5, overlay: false).image
        let count = { (image: RGBAImage) in stride(from: 0, to: image.pixels.count, by: 4).filter { image.pixels[$0] > 230 && image.pixels[$0 + 1] > 230 }.count }
        XCTAssertGreaterThan(count(during), 5)
        XCTAssertEqual(count(before), 0)
        let guided = try StillRender.render(board, pageOffset: 0, time: 0.5, overlay: false, safeZones: .reels).image
        // The top 14 % is tinted red; the middle of the frame is not.
        let top = (10 * 180 + 90) * 4, middle = (160 * 180 + 90) * 4
        XCTAssertGreaterThan(Int(guided.pixels[top]), Int(before.pixels[top]) + 30)
        XCTAssertEqual(guided.pixels[middle..<middle + 4], before.pixels[middle..<middle + 4])
        // With reels' zones the caption sits above its bottom 35 %; by default below it.
        let rows = { (image: RGBAImage) in
            stride(from: 0, to: image.pixels.count, by: 4).filter { image.pixels[$0] > 230 && image.pixels[$0 + 1] > 230 }.map { $0 / 4 / 180 }
        }
        let reels = try StillRender.render(board, pageOffset: 0, time: 1.5, overlay: false, safeZones: .reels).image
        XCTAssertFalse(rows(reels).isEmpty)
        XCTAssertTrue(rows(reels).allSatisfy { Double($0) < 0.65 * 320 && Double($0) > 0.14 * 320 }, "\(rows(reels))")
        XCTAssertTrue(rows(during).allSatisfy { Double($0) > 0.65 * 320 && Double($0) < 0.80 * 320 }, "\(rows(during))")
    }
}
