import Compositor
import Foundation
import StoryTestSupport
import XCTest

/// The studio plays the storyboard's music beside its frames: from its `in`, at its volume, in
/// step with the frame on screen, paused with the preview (headless Chromium, a real key press).
final class StudioMusicTests: XCTestCase {
    func testTheMusicPlaysFromItsInPointWithThePreview() throws {
        try StudioHarness.requireChromium()
        let folder = ScratchFolder()
        try RGBAImage(width: 90, height: 160, fill: RGBAColor(red: 128, green: 128, blue: 128)).writePNG(to: folder.file("grey.png"))
        try FileManager.default.createDirectory(atPath: folder.file("sound"), withIntermediateDirectories: true)
        _ = try ExternalProgram.run(TestPrograms.tool("ffmpeg"), ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=20",
                                                                 "-c:a", "pcm_s16le", folder.file("sound/bed.wav")])
        let board = folder.write("board.json", Array("""
        {"canvas": {"width": 90, "height": 160, "fps": 10}, "music": {"uri": "sound/bed.wav", "in": 5, "volume": 0.5},
         "stories": [{"id": "s", "items": [{"uri": "grey.png", "duration": 8}]}]}
        """.utf8))
        let (studio, browser) = try StudioHarness.open(board: board, output: folder.file("out"))
        defer { browser.close(); studio.stop() }
        XCTAssertNotNil(try browser.wait("document.body.dataset.music === 'ready' && music.readyState >= 1", timeout: 20), "the music loaded")
        XCTAssertEqual(try browser.js("music.paused") as? Bool, true, "silent until the preview plays")
        // Space plays (a key press, which lets a page start sound), and the music with it.
        try browser.key(" ", code: "Space", keyCode: 32, text: " ")
        XCTAssertNotNil(try browser.wait("!music.paused && music.currentTime > 5.2", timeout: 10), "playing, from its in-point on")
        let volume = try XCTUnwrap(browser.js("music.volume") as? Double)
        XCTAssertEqual(volume, 0.5, accuracy: 0.01, "at its volume")
        // In step with the preview: the file's time is `in` plus the frame's.
        let skew = try XCTUnwrap(browser.js("Math.abs(music.currentTime - 5 - state.frame / fps)") as? Double)
        XCTAssertLessThan(skew, 0.6, "the music within a few frames of the picture")
        try browser.key(" ", code: "Space", keyCode: 32, text: " ")
        XCTAssertNotNil(try browser.wait("music.paused", timeout: 5), "paused with the preview")
        XCTAssertEqual(try browser.consoleErrors(), [])
    }
}
