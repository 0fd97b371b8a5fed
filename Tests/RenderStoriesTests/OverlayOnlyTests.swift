import Compositor
import Foundation
import XCTest

/// `--overlay-only`: the layers, progress segments and captions over transparency, as they lie
/// on the stories in the full render (turning with the cube), for compositing over footage.
final class OverlayOnlyTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()
    static let grey = RGBAColor(red: 128, green: 128, blue: 128), red = RGBAColor(red: 230, green: 20, blue: 20)

    /// Two grey stories at 180x320, 10 fps, story one with a red square sticker and a caption,
    /// swiped by a cube at 0.5 s; rendered with `extra`, into a folder of its own.
    func render(_ name: String, _ extra: [String]) throws -> (out: String, result: CommandLineRunner.Outcome) {
        try RGBAImage(width: 180, height: 320, fill: Self.grey).writePNG(to: folder.file("grey.png"))
        var square = RGBAImage(width: 64, height: 64, fill: .transparent)
        for y in 2..<62 { for x in 2..<62 { square[x, y] = Self.red } }
        try square.writePNG(to: folder.file("square.png"), options: PNGOptions(keepAlpha: true))
        folder.write("talk.vtt", Array("WEBVTT\n\n00:00.000 --> 00:03.000\nhello\n".utf8))
        let board = folder.write("board.json", Array("""
        {"canvas": {"width": 180, "height": 320, "fps": 10, "background": "#203040"}, "duration": 1.5,
         "stories": [{"id": "one", "items": [{"uri": "grey.png", "duration": 3, "captions": "talk.vtt",
                      "layers": [{"image": "square.png", "width": 0.3556, "y": 0.4}]}]},
                     {"id": "two", "items": [{"uri": "grey.png", "duration": 3}]}],
         "script": [{"at": 0.5, "action": "swipe", "direction": "next", "style": "cube"}]}
        """.utf8))
        let out = folder.file(name)
        return (out, try cli.run(["render", board, "--quiet", "--output", out] + extra))
    }

    func frame(_ out: String, _ k: Int) throws -> RGBAImage {
        try RGBAImage(contentsOfPNG: out + String(format: "/frame-%06d.png", k))
    }

    /// A frame mid-turn, from the render's frame records.
    func turningFrame(_ out: String) throws -> Int {
        let records = try String(contentsOfFile: out + "/frames.jsonl", encoding: .utf8).split(separator: "\n")
        return try XCTUnwrap(records.firstIndex { line in
            guard let offset = line.firstMatch(of: /"page":([\d.]+)/).flatMap({ Double($0.1) }) else { return false }
            return offset > 0.3 && offset < 0.7
        }, "a frame mid-turn")
    }

    func testOnlyWhatLiesOverTheStoriesIsDrawnAsOnTheStories() throws {
        let mov = folder.file("ui.mov")
        let (over, result) = try render("over", ["--overlay-only", "--mov", mov])
        XCTAssertEqual(result.status, 0, result.stderr)
        let (full, fullResult) = try render("full", [])
        XCTAssertEqual(fullResult.status, 0, fullResult.stderr)
        let turning = try turningFrame(over)
        XCTAssertEqual(turning, try turningFrame(full), "the same turn")
        for k in [2, turning] {
            let ui = try frame(over, k), story = try frame(full, k)
            var transparent = 0, captioned = 0, greyLeft = 0, worst = 0, red = 0
            for y in 0..<320 {
                for x in 0..<180 {
                    let pixel = ui[x, y]
                    if pixel.alpha == 0 { transparent += 1; continue }
                    if y >= 200 { captioned += 1 }
                    guard pixel.alpha == 255 else { continue }
                    // The segments' track over their shade is grey too, but never opaque.
                    if pixel.distance(to: Self.grey) < 30 || pixel.distance(to: RGBAColor(red: 0x20, green: 0x30, blue: 0x40)) < 20 {
                        greyLeft += 1
                    }
                    if pixel.distance(to: Self.red) < 90 { red += 1 }
                    // Where the UI is opaque it is what the full render shows there.
                    let shown = story[x, y]
                    worst = max(worst, abs(Int(pixel.red) - Int(shown.red)), abs(Int(pixel.green) - Int(shown.green)),
                                abs(Int(pixel.blue) - Int(shown.blue)))
                }
            }
            XCTAssertGreaterThan(transparent, 180 * 320 * 3 / 4, "frame \(k): most of it transparent, where the stories were")
            XCTAssertEqual(greyLeft, 0, "frame \(k): no story picture nor background")
            XCTAssertEqual(ui[5, 160].alpha, 0, "frame \(k): nothing at the left edge's middle")
            XCTAssertGreaterThan(red, k == 2 ? 3000 : 800, "frame \(k): the sticker, opaque")
            XCTAssertGreaterThan(captioned, 100, "frame \(k): the caption's box and words")
            XCTAssertLessThanOrEqual(worst, 3, "frame \(k): the opaque UI as the full render draws it")
        }
        // Mid-turn the sticker narrows with its face, as on the story.
        let restWidth = columns(of: try frame(over, 2)), turnWidth = columns(of: try frame(over, turning))
        XCTAssertLessThan(turnWidth, restWidth - 10, "narrowed with its face (\(turnWidth) of \(restWidth) columns)")
        // The stories still played: the lifecycle trace is the full render's.
        let events = { (out: String) in
            try String(contentsOfFile: out + "/lifecycle.jsonl", encoding: .utf8)
                .replacing(#/"wall": [\d.]+, /#, with: "").replacing(#/, "\w+_ms": [\d.]+/#, with: "")
        }
        XCTAssertEqual(try events(over), try events(full), "the events but their wall-clock times and durations")
        let probe = String(decoding: try ExternalProgram.run(TestPrograms.tool("ffprobe"), ["-v", "error", "-show_entries",
            "stream=codec_name,pix_fmt,profile", "-of", "compact", mov]), as: UTF8.self)
        XCTAssertTrue(probe.contains("prores") && probe.contains("4444") && probe.contains("yuva"), probe)
    }

    /// `still --overlay-only` draws the overlay-only render's frame, at rest and mid-turn.
    func testStillDrawsTheOverlayOnlyFrame() throws {
        let (over, result) = try render("over", ["--overlay-only", "--no-overlay"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let records = try String(contentsOfFile: over + "/frames.jsonl", encoding: .utf8).split(separator: "\n")
        for k in [2, try turningFrame(over)] {
            let offset = try XCTUnwrap(records[k].firstMatch(of: /"page":([\d.]+)/).flatMap { Double($0.1) })
            let png = folder.file("still-\(k).png")
            let still = try cli.run(["still", folder.file("board.json"), "--page", "\(offset)", "--time", "\(Double(k) / 10)",
                                     "--overlay-only", "--no-overlay", "--output", png])
            XCTAssertEqual(still.status, 0, still.stderr)
            XCTAssertEqual(try RGBAImage(contentsOfPNG: png), try frame(over, k), "frame \(k) at page \(offset)")
        }
    }

    /// The columns any red pixel stands in.
    func columns(of picture: RGBAImage) -> Int {
        (0..<picture.width).filter { x in (0..<picture.height).contains { picture[x, $0].alpha > 200 && picture[x, $0].distance(to: Self.red) < 90 } }.count
    }

    func testAnOutputWithoutAlphaIsRefused() throws {
        for (flag, file) in [("--mp4", "ui.mp4"), ("--gif", "ui.gif")] {
            let (_, result) = try render("refused", ["--overlay-only", flag, folder.file(file)])
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains("--overlay-only draws over transparency, which \(flag) cannot keep"), result.stderr)
        }
        let (_, av1) = try render("av1", ["--overlay-only", "--webm", folder.file("ui.webm"), "--webm-codec", "av1"])
        XCTAssertEqual(av1.status, 2, av1.stderr)
        let (_, background) = try render("background", ["--overlay-only", "--background", "#ffffff"])
        XCTAssertEqual(background.status, 2, background.stderr)
        XCTAssertTrue(background.stderr.contains("not with --background"), background.stderr)
    }
}
