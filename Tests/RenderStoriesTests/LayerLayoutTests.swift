import Compositor
import Foundation
import XCTest

/// `check-layout` (and a render with a platform `--preset`) warns of a text layer or sticker
/// that comes to rest inside a platform's UI zones, and is quiet about one in the safe area.
final class LayerLayoutTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    func board(_ layers: String) throws -> String {
        try RGBAImage(width: 20, height: 20, fill: .white).writePNG(to: folder.file("badge.png"))
        return folder.write("board.json", Array("""
        {"canvas": {"width": 720, "height": 1280},
         "stories": [{"id": "s", "items": [{"uri": "x.mp4", "layers": \(layers)}]}]}
        """.utf8))
    }

    func testALayerRestingInAZoneIsNamedWithItsBox() throws {
        let low = try cli.run(["check-layout", try board("""
        [{"text": "Swipe up", "size": 48, "keyframes": [{"t": 0, "y": 0.5}, {"t": 1, "y": 0.9}]},
         {"image": "badge.png", "width": 0.2, "x": 0.5, "y": 0.4}]
        """), "--platform", "reels"])
        XCTAssertEqual(low.status, 1, low.stderr)
        XCTAssertTrue(low.stdout.hasPrefix("stories[0].items[0].layers[0]: the text layer (x "), low.stdout)
        XCTAssertTrue(low.stdout.contains("falls in reels' bottom 35 %"), low.stdout)
        XCTAssertFalse(low.stdout.contains("layers[1]"), "the badge rests in the safe area: \(low.stdout)")
        let high = try cli.run(["check-layout", try board(#"[{"image": "badge.png", "width": 0.2, "x": 0.5, "y": 0.85}]"#), "--platform", "reels"])
        XCTAssertEqual(high.status, 1)
        XCTAssertTrue(high.stdout.contains("stories[0].items[0].layers[0]: the sticker (x 40–60 %, y 79–91 %) falls in reels' bottom 35 %"), high.stdout)
        let safe = try cli.run(["check-layout", try board(#"[{"text": "Hi", "y": 0.45}]"#), "--platform", "reels"])
        XCTAssertEqual(safe.status, 0, safe.stdout)
    }

    /// Slid out past the right or bottom edge (it trapped): no box, no warning.
    func testALayerRestingOffTheCanvasIsNotChecked() throws {
        let off = try cli.run(["check-layout", try board(#"[{"text": "Bye", "keyframes": [{"t": 0, "x": 0.5}, {"t": 1, "x": 1.5, "y": 1.6}]}]"#),
                               "--platform", "reels"])
        XCTAssertEqual(off.status, 0, off.stdout + off.stderr)
    }
}
