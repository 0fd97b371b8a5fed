import Compositor
import Foundation
import XCTest

/// Text and sticker layers as they reach the frames: where keyframes and easings put them, their
/// rotation, scale and opacity, a text's pill, stroke and fill, a layer turning with its cube,
/// `still` drawing what the render draws, an animated sticker looping, a missing file noted.
final class StoryLayerPixelTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()
    static let grey = RGBAColor(red: 128, green: 128, blue: 128), red = RGBAColor(red: 230, green: 20, blue: 20)

    /// A PNG of `width`x`height` in `colour`, inside a transparent border of 2 pixels.
    func sticker(_ name: String, width: Int, height: Int, colour: RGBAColor = red) throws -> String {
        var picture = RGBAImage(width: width + 4, height: height + 4, fill: .transparent)
        for y in 2..<(height + 2) { for x in 2..<(width + 2) { picture[x, y] = colour } }
        let path = folder.file(name)
        try picture.writePNG(to: path, options: PNGOptions(keepAlpha: true))
        return path
    }

    /// Renders stories (JSON) over a grey photo at 180x320, 10 fps; returns the output folder.
    func render(_ stories: String, name: String, script: String = "[]", extra: [String] = []) throws -> String {
        try RGBAImage(width: 180, height: 320, fill: Self.grey).writePNG(to: folder.file("grey.png"))
        let board = folder.write("\(name).json", Array("""
        {"canvas": {"width": 180, "height": 320, "fps": 10}, "stories": \(stories), "script": \(script)}
        """.utf8))
        let out = folder.file(name)
        let result = try cli.run(["render", board, "--no-overlay", "--quiet", "--output", out] + extra)
        XCTAssertEqual(result.status, 0, result.stderr)
        return out
    }

    func frame(_ out: String, _ k: Int) throws -> RGBAImage {
        try RGBAImage(contentsOfPNG: out + String(format: "/frame-%06d.png", k))
    }

    /// The pixels near `colour`: how many, their centroid and their bounding box.
    func blob(_ picture: RGBAImage, _ colour: RGBAColor, tolerance: Int = 40, rows: Range<Int>? = nil,
              columns: Range<Int>? = nil) -> (count: Int, x: Double, y: Double, width: Int, height: Int) {
        var count = 0, sumX = 0, sumY = 0, left = Int.max, right = Int.min, top = Int.max, bottom = Int.min
        for y in rows ?? 0..<picture.height {
            for x in columns ?? 0..<picture.width where picture[x, y].distance(to: colour) <= tolerance {
                count += 1; sumX += x; sumY += y
                (left, right, top, bottom) = (min(left, x), max(right, x), min(top, y), max(bottom, y))
            }
        }
        guard count > 0 else { return (0, .nan, .nan, 0, 0) }
        return (count, Double(sumX) / Double(count) + 0.5, Double(sumY) / Double(count) + 0.5, right - left + 1, bottom - top + 1)
    }

    func testKeyframesPlaceAStickerAtEachMomentAlongItsEasing() throws {
        _ = try sticker("dot.png", width: 18, height: 18)
        let out = try render("""
        [{"id": "s", "items": [{"uri": "grey.png", "duration": 1.5, "layers": [{"image": "dot.png", "width": 0.1222,
          "keyframes": [{"t": 0, "x": 0.25, "easing": "ease-in-out"}, {"t": 1, "x": 0.75}]}]}]}]
        """, name: "moves")
        let easeInOut = [0: 0.0, 2: 0.0805, 5: 0.5, 10: 1.0, 14: 1.0]
        for (k, share) in easeInOut.sorted(by: { $0.key < $1.key }) {
            let found = blob(try frame(out, k), Self.red)
            XCTAssertGreaterThan(found.count, 250, "frame \(k): the 18x18 dot")
            XCTAssertEqual(found.x, 180 * (0.25 + 0.5 * share), accuracy: 1, "frame \(k)")
            XCTAssertEqual(found.y, 160, accuracy: 1, "frame \(k)")
        }
    }

    func testRotationScaleAndOpacity() throws {
        _ = try sticker("bar.png", width: 40, height: 8)
        let out = try render("""
        [{"id": "s", "items": [{"uri": "grey.png", "duration": 1, "layers": [
          {"image": "bar.png", "width": 0.2444, "x": 0.25, "y": 0.25, "rotation": 90},
          {"image": "bar.png", "width": 0.2444, "x": 0.5, "y": 0.5, "scale": 2},
          {"image": "bar.png", "width": 0.2444, "x": 0.5, "y": 0.8, "opacity": 0.5}]}]}]
        """, name: "poses")
        let picture = try frame(out, 3)
        let turned = blob(picture, Self.red, rows: 0..<120, columns: 0..<90)
        XCTAssertEqual(turned.width, 8, accuracy: 2, "turned a quarter: 8 wide")
        XCTAssertEqual(turned.height, 40, accuracy: 2, "and 40 tall")
        let scaled = blob(picture, Self.red, rows: 130..<190)
        XCTAssertEqual(scaled.width, 80, accuracy: 2, "twice as wide")
        XCTAssertEqual(scaled.height, 16, accuracy: 2)
        let half = picture[90, 256]
        let expected = RGBAColor(red: 179, green: 74, blue: 74)
        XCTAssertLessThanOrEqual(half.distance(to: expected), 6, "half of red over grey: \(half)")
    }

    func testATextLayerDrawsItsPillStrokeAndFill() throws {
        let out = try render("""
        [{"id": "s", "items": [{"uri": "grey.png", "duration": 1, "layers": [
          {"text": "HI", "size": 48, "bold": true, "color": "#00ff00", "stroke": {"width": 3, "color": "#000"},
           "background": "#0000ff", "y": 0.3}]}]}]
        """, name: "text")
        let picture = try frame(out, 2)
        let pill = blob(picture, RGBAColor(red: 0, green: 0, blue: 255), tolerance: 10)
        let fill = blob(picture, RGBAColor(red: 0, green: 255, blue: 0), tolerance: 10)
        let stroke = blob(picture, .black, tolerance: 10)
        XCTAssertGreaterThan(pill.count, 1000, "the pill behind the words")
        XCTAssertGreaterThan(fill.count, 200, "the green letters")
        XCTAssertGreaterThan(stroke.count, 100, "their black outline")
        for found in [pill, fill, stroke] {
            XCTAssertEqual(found.x, 90, accuracy: 4, "centred")
            XCTAssertEqual(found.y, 96, accuracy: 4, "at 0.3 of the height")
        }
        XCTAssertGreaterThan(pill.width, fill.width, "the pill reaches around the words")
        XCTAssertEqual(picture[10, 300], Self.grey, "nothing drawn elsewhere")
    }

    /// A text layer's emoji and a caption's reach the frame in colour: 🍋's yellow where the
    /// layer stands, ❤️'s red in the caption at the bottom; the words around them stay white.
    func testEmojiReachTheFramesInColour() throws {
        folder.write("talk.vtt", Array("WEBVTT\n\n00:00.000 --> 00:01.000\nsee you ❤️\n".utf8))
        let out = try render(##"""
        [{"id": "s", "items": [{"uri": "grey.png", "duration": 1, "captions": "talk.vtt",
          "layers": [{"text": "🍋 fresh", "size": 40, "y": 0.3}]}]}]
        """##, name: "emoji")
        let picture = try frame(out, 2)
        let lemon = blob(picture, RGBAColor(red: 250, green: 210, blue: 60), tolerance: 60, rows: 60..<140)
        XCTAssertGreaterThan(lemon.count, 150, "the lemon's yellow in the layer")
        let heart = blob(picture, RGBAColor(red: 230, green: 30, blue: 40), tolerance: 60, rows: 160..<320)
        XCTAssertGreaterThan(heart.count, 40, "the heart's red in the caption")
        XCTAssertGreaterThan(heart.y, 220, "in the caption, low on the frame")
        XCTAssertEqual(blob(picture, RGBAColor(red: 250, green: 210, blue: 60), tolerance: 60, rows: 160..<320).count, 0)
    }

    /// `--size` half the canvas draws the words half as large, as it places them.
    func testATextLayerScalesWithTheCanvasSize() throws {
        let stories = ##"[{"id": "s", "items": [{"uri": "grey.png", "duration": 1, "layers": [{"text": "Sale", "size": 48, "background": "#0000ff"}]}]}]"##
        let blue = RGBAColor(red: 0, green: 0, blue: 255)
        let full = blob(try frame(try render(stories, name: "full"), 2), blue, tolerance: 10)
        let half = blob(try frame(try render(stories, name: "half", extra: ["--size", "90x160"]), 2), blue, tolerance: 10)
        XCTAssertEqual(Double(half.width) / Double(full.width), 0.5, accuracy: 0.08, "\(half.width) of \(full.width) px")
        XCTAssertEqual(half.x, 45, accuracy: 2)
    }

    /// Mid-turn, story one's sticker is on its face: narrowed by the perspective and on the left
    /// of the frame, where that face is.
    func testALayerTurnsWithItsCube() throws {
        _ = try sticker("square.png", width: 60, height: 60)
        let out = try render("""
        [{"id": "one", "items": [{"uri": "grey.png", "duration": 3, "layers": [{"image": "square.png", "width": 0.3556}]}]},
         {"id": "two", "items": [{"uri": "grey.png", "duration": 3}]}]
        """, name: "cube", script: #"[{"at": 0.5, "action": "swipe", "direction": "next", "style": "cube"}]"#)
        let rest = blob(try frame(out, 2), Self.red)
        XCTAssertEqual(rest.width, 60, accuracy: 1)
        let records = try String(contentsOfFile: out + "/frames.jsonl", encoding: .utf8).split(separator: "\n")
        let turning = try XCTUnwrap(records.firstIndex { line in
            guard let offset = line.firstMatch(of: /"page":([\d.]+)/).flatMap({ Double($0.1) }) else { return false }
            return offset > 0.3 && offset < 0.7
        }, "a frame mid-turn")
        // The turning face is shaded darker: its red is near (170, 15, 15), its grey near 95.
        let mid = blob(try frame(out, turning), Self.red, tolerance: 80)
        XCTAssertGreaterThan(mid.count, 200, "the sticker is still drawn")
        XCTAssertLessThan(mid.width, rest.width - 10, "narrowed with its face")
        XCTAssertLessThan(mid.x, 90, "on the face turning away to the left")
    }

    func testStillDrawsWhatTheRenderDraws() throws {
        _ = try sticker("dot.png", width: 18, height: 18)
        let stories = """
        [{"id": "s", "layers": [{"text": "Story", "y": 0.2, "background": "#000000aa"}],
          "items": [{"uri": "grey.png", "duration": 2, "layers": [{"image": "dot.png", "width": 0.1222, "rotation": 30,
            "keyframes": [{"t": 0, "x": 0.2, "easing": "spring"}, {"t": 1, "x": 0.8}]}]}]}]
        """
        let out = try render(stories, name: "whole")
        let png = folder.file("still.png")
        let result = try cli.run(["still", folder.file("whole.json"), "--page", "0", "--time", "0.4", "--no-overlay", "--output", png])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try RGBAImage(contentsOfPNG: png), try frame(out, 4), "still --time 0.4 is frame 4")
    }

    func testAnAnimatedStickerLoops() throws {
        let red = try sticker("a.png", width: 20, height: 20), blue = try sticker("b.png", width: 20, height: 20, colour: RGBAColor(red: 20, green: 40, blue: 230))
        let gif = folder.file("blink.gif")
        try FileManager.default.copyItem(atPath: red, toPath: folder.file("1.png"))
        try FileManager.default.copyItem(atPath: blue, toPath: folder.file("2.png"))
        _ = try ExternalProgram.run(TestPrograms.tool("ffmpeg"), ["-v", "error", "-y", "-framerate", "2", "-start_number", "1",
                                                                 "-i", folder.file("%d.png"), "-f", "gif", gif])
        let out = try render("""
        [{"id": "s", "items": [{"uri": "grey.png", "duration": 1.5, "layers": [{"image": "blink.gif", "width": 0.1333}]}]}]
        """, name: "blink")
        for (k, colour) in [(2, Self.red), (7, RGBAColor(red: 20, green: 40, blue: 230)), (12, Self.red)] {
            XCTAssertGreaterThan(blob(try frame(out, k), colour).count, 200, "frame \(k)")
        }
    }

    /// An animated WebP (libwebp's animation decoder: FFmpeg 5.1 reads still WebP only) loops
    /// as a GIF does, its transparency kept around the square.
    func testAnAnimatedWebPStickerLoops() throws {
        let blue = RGBAColor(red: 20, green: 40, blue: 230)
        let red = try sticker("a.png", width: 20, height: 20), other = try sticker("b.png", width: 20, height: 20, colour: blue)
        try FileManager.default.copyItem(atPath: red, toPath: folder.file("1.png"))
        try FileManager.default.copyItem(atPath: other, toPath: folder.file("2.png"))
        let webp = folder.file("blink.webp")
        _ = try ExternalProgram.run(TestPrograms.tool("ffmpeg"), ["-v", "error", "-y", "-framerate", "2", "-start_number", "1",
                                                                 "-i", folder.file("%d.png"), "-c:v", "libwebp_anim", "-lossless", "1",
                                                                 "-loop", "0", "-pix_fmt", "yuva420p", webp])
        let out = try render("""
        [{"id": "s", "items": [{"uri": "grey.png", "duration": 1.5, "layers": [{"image": "blink.webp", "width": 0.1333}]}]}]
        """, name: "blink-webp")
        for (k, colour) in [(2, Self.red), (7, blue), (12, Self.red)] {
            let found = blob(try frame(out, k), colour)
            XCTAssertGreaterThan(found.count, 200, "frame \(k)")
            XCTAssertEqual(found.width, 20, accuracy: 2, "frame \(k): the square, its transparent border kept")
        }
        let summary = try String(contentsOfFile: out + "/summary.json", encoding: .utf8)
        XCTAssertFalse(summary.contains("WebP"), "no notice: \(summary)")
    }

    func testAMissingStickerIsANoticeAndTheRenderGoesOn() throws {
        let out = try render("""
        [{"id": "s", "items": [{"uri": "grey.png", "duration": 1, "layers": [{"image": "gone.png"}, {"text": "still here"}]}]}]
        """, name: "missing")
        let summary = try String(contentsOfFile: out + "/summary.json", encoding: .utf8)
        XCTAssertTrue(summary.contains("stories[0].items[0].layers[0]"), summary)
        XCTAssertTrue(summary.contains("gone.png"), summary)
        XCTAssertGreaterThan(blob(try frame(out, 5), .white, tolerance: 10).count, 50, "the text layer is drawn all the same")
    }
}
