import Compositor
import Foundation
import StoryTestSupport
import XCTest

/// The studio draws a story's layers in its frames as `render` does, and a sticker saved again
/// on disk draws the frame again (the studio watches the files layers name).
final class StudioLayerTests: XCTestCase {
    func testAStickerInTheFrameFollowsItsFileOnDisk() throws {
        let folder = ScratchFolder()
        try RGBAImage(width: 90, height: 160, fill: RGBAColor(red: 128, green: 128, blue: 128)).writePNG(to: folder.file("grey.png"))
        let red = RGBAColor(red: 230, green: 20, blue: 20), blue = RGBAColor(red: 20, green: 40, blue: 230)
        try RGBAImage(width: 30, height: 30, fill: red).writePNG(to: folder.file("sticker.png"))
        let board = folder.write("board.json", Array("""
        {"canvas": {"width": 90, "height": 160, "fps": 10},
         "stories": [{"id": "s", "items": [{"uri": "grey.png", "duration": 2, "layers": [{"image": "sticker.png", "width": 0.3333}]}]}]}
        """.utf8))
        let studio: StudioProcess
        do {
            studio = try StudioProcess(board: board, output: folder.file("out"))
        } catch {
            // A server that does not start fails, under CI and anywhere else.
            XCTFail("\(error)")
            throw error
        }
        defer { studio.stop() }
        let http = RawHTTP(address: "127.0.0.1", port: studio.port)
        func centre() throws -> RGBAColor {
            let reply = try http.get("/api/frame?n=5&token=\(studio.token)")
            XCTAssertEqual(reply.status, 200, reply.head)
            let frame = try RGBAImage(pngData: [UInt8](reply.body))
            return frame[45, 80]
        }
        XCTAssertLessThanOrEqual(try centre().distance(to: red), 3, "the sticker is in the studio's frame")
        try RGBAImage(width: 30, height: 30, fill: blue).writePNG(to: folder.file("sticker.png"))
        let deadline = Date().addingTimeInterval(10)
        var shown = try centre()
        while shown.distance(to: blue) > 3 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            shown = try centre()
        }
        XCTAssertLessThanOrEqual(shown.distance(to: blue), 3, "saving the sticker drew the frame again: \(shown)")
    }
}
