import Compositor
import Foundation
import XCTest

/// `render --preset reels|stories|tiktok|shorts` keeps captions out of the platform's UI, and
/// says what `check-layout` would (issue 61, item 4); `check-layout` measures a caption's box
/// after libass wraps it, as the frames show it.
///
/// The frames are read back: the story is a white photo, and the caption's box is the dark band
/// libass draws (75 % opaque black behind white text), so its rows are the rows with dark pixels.
final class PresetCaptionPlacementTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    static let short = "Hello there"
    /// 335 characters: 12 or 13 lines at 1080 wide in reels' safe area (its box from about 10 % to
    /// 65 % of the height), more than 5 at 360.
    static let long = Array(repeating: "the quick brown fox jumps over a lazy dog", count: 8).joined(separator: " ")

    func board(caption: String, width: Int = 90, height: Int = 160) throws -> String {
        try RGBAImage(width: 18, height: 32, fill: .white).writePNG(to: folder.file("white.png"))
        _ = folder.write("talk.vtt", Array("WEBVTT\n\n00:00.000 --> 00:05.000\n\(caption)\n".utf8))
        return folder.write("board.json", Array("""
        {"canvas": {"width": \(width), "height": \(height), "fps": 10}, "duration": 1,
         "stories": [{"id": "a", "items": [{"uri": "white.png", "duration": 5, "captions": "talk.vtt"}]}]}
        """.utf8))
    }

    /// A three-frame render with the preset; its first frame, and what it said.
    func render(_ board: String, _ extra: [String]) throws -> (frame: RGBAImage, stderr: String, notices: [String]) {
        let out = folder.file("out")
        let result = try cli.run(["render", board, "--preset", "reels", "--mp4", folder.file("clip.mp4"), "--duration", "0.1",
                                  "--no-overlay", "--x264-preset", "ultrafast", "--output", out] + extra)
        XCTAssertEqual(result.status, 0, result.stderr)
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/summary.json")))
        let notices = (summary as? [String: Any])?["notices"] as? [String] ?? []
        return (try RGBAImage(contentsOfPNG: out + "/frame-000000.png"), result.stderr, notices)
    }

    /// The first and last rows with a dark pixel (the caption's box), as fractions of the height.
    func boxRows(_ image: RGBAImage) -> ClosedRange<Double>? {
        let dark = (0..<image.height).filter { y in
            (0..<image.width).contains { x in
                let pixel = image[x, y]
                return Int(pixel.red) + Int(pixel.green) + Int(pixel.blue) < 3 * 128
            }
        }
        guard let top = dark.first, let bottom = dark.last else { return nil }
        return Double(top) / Double(image.height)...Double(bottom + 1) / Double(image.height)
    }

    /// "y 41–65 %" in a warning, as fractions.
    func reportedRows(_ line: String) -> ClosedRange<Double>? {
        guard let match = line.firstMatch(of: /y (\d+)–(\d+) %/), let top = Double(match.1), let bottom = Double(match.2)
        else { return nil }
        return top / 100...bottom / 100
    }

    func testWithReelsThePresetPutsTheCaptionAboveReelsBottom35Percent() throws {
        let rendered = try render(try board(caption: Self.short), [])
        let rows = try XCTUnwrap(boxRows(rendered.frame), "no caption box in the frame")
        XCTAssertLessThanOrEqual(rows.upperBound, 0.65, "the box reaches into reels' bottom 35 %: \(rows)")
        XCTAssertGreaterThan(rows.upperBound, 0.60, "the box sits on the safe area's bottom line: \(rows)")
        XCTAssertGreaterThanOrEqual(rows.lowerBound, 0.14, "\(rows)")
        XCTAssertFalse(rendered.stderr.contains("falls in"), rendered.stderr)
        XCTAssertFalse(rendered.notices.contains { $0.contains("falls in") }, "\(rendered.notices)")
    }

    /// `--burn-guides` draws the preset's guides; shorts has none to draw, so it needs `--safe-zones`.
    func testBurnGuidesDrawsThePresetsZones() throws {
        let rendered = try render(try board(caption: Self.short), ["--burn-guides"])
        let top = rendered.frame[540, 100]
        XCTAssertLessThan(top.green, 250, "reels' top 14 % is tinted: \(top)")
        let shorts = try cli.run(["render", try board(caption: Self.short), "--preset", "shorts", "--mp4", folder.file("s.mp4"),
                                  "--burn-guides", "--output", folder.file("shorts")])
        XCTAssertEqual(shorts.status, 2, shorts.stderr)
        XCTAssertTrue(shorts.stderr.contains("--burn-guides needs --safe-zones"), shorts.stderr)
    }

    /// `--safe-zones stories` given with `--preset reels` wins (the captions sit 20 % above the
    /// bottom), and the render says so, and that reels' bottom 35 % covers them.
    func testAnExplicitSafeZonesWinsWithAWarning() throws {
        let rendered = try render(try board(caption: Self.short), ["--safe-zones", "stories"])
        let rows = try XCTUnwrap(boxRows(rendered.frame))
        XCTAssertGreaterThan(rows.upperBound, 0.75, "placed for stories: \(rows)")
        for expected in ["--safe-zones stories wins over --preset reels: the captions are placed in stories' safe area, not reels'",
                         "falls in reels' bottom 35 %"] {
            XCTAssertTrue(rendered.stderr.contains(expected), "\(expected) in \(rendered.stderr)")
            XCTAssertTrue(rendered.notices.contains { $0.contains(expected) }, "\(expected) in \(rendered.notices)")
        }
    }

    /// A cue long enough to wrap up into reels' top 14 %: the render warns, and the box it
    /// names is the one in the frame, to the percent.
    func testACaptionWrappedIntoTheTopZoneIsWarnedOfWhereItIsDrawn() throws {
        let rendered = try render(try board(caption: Self.long), [])
        let warning = try XCTUnwrap(rendered.notices.first { $0.contains("falls in reels' top 14 %") }, "\(rendered.notices)")
        XCTAssertTrue(rendered.stderr.contains(warning), rendered.stderr)
        let drawn = try XCTUnwrap(boxRows(rendered.frame))
        let said = try XCTUnwrap(reportedRows(warning), warning)
        XCTAssertEqual(said.lowerBound, drawn.lowerBound, accuracy: 0.011, "\(warning) against the frame's \(drawn)")
        XCTAssertEqual(said.upperBound, drawn.upperBound, accuracy: 0.011, "\(warning) against the frame's \(drawn)")
    }

    /// `check-layout` of a cue libass wraps onto five lines or more reports the box as tall as
    /// `still` draws it (it was one line high, as the file has one line).
    func testCheckLayoutMeasuresTheCaptionAfterWrapping() throws {
        let board = try board(caption: Self.long, width: 360, height: 640)
        let check = try cli.run(["check-layout", board, "--platform", "reels"])
        XCTAssertEqual(check.status, 1, check.stdout + check.stderr)
        let said = try XCTUnwrap(reportedRows(check.stdout), check.stdout)
        let still = folder.file("still.png")
        let drawn = try cli.run(["still", board, "--page", "0", "--time", "0.5", "--no-overlay", "--output", still])
        XCTAssertEqual(drawn.status, 0, drawn.stderr)
        let rows = try XCTUnwrap(boxRows(try RGBAImage(contentsOfPNG: still)))
        XCTAssertGreaterThan(rows.upperBound - rows.lowerBound, 5 * 0.036 * 1.17, "five lines or more: \(rows)")
        XCTAssertEqual(said.lowerBound, rows.lowerBound, accuracy: 0.011, "\(check.stdout) against the still's \(rows)")
        XCTAssertEqual(said.upperBound, rows.upperBound, accuracy: 0.011, "\(check.stdout) against the still's \(rows)")
    }
}
