import Compositor
import Foundation
import XCTest

/// The MP4's colour (issue 61, item 5): an HD clip is encoded with the BT.709 matrix and tagged
/// BT.709 (primaries, transfer, matrix), an SD clip with BT.601's matrix, tagged so. Read back
/// with ffprobe, and decoded by the ffmpeg CLI with the matrix a player uses: a pure red canvas
/// stays red.
final class ClipColourTagTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// A 0.3 s render of a pure red photo at `size`, as an MP4.
    func redClip(_ size: String) throws -> String {
        try RGBAImage(width: 32, height: 32, fill: RGBAColor(red: 255, green: 0, blue: 0)).writePNG(to: folder.file("red.png"))
        let board = folder.write("board.json", Array("""
        {"canvas": {"width": 90, "height": 160, "fps": 10}, "duration": 0.3,
         "stories": [{"id": "red", "items": [{"uri": "red.png", "duration": 1}]}]}
        """.utf8))
        let clip = folder.file("red-\(size).mp4")
        let result = try cli.run(["render", board, "--size", size, "--no-overlay", "--no-png", "--quiet", "--mp4", clip,
                                  "--x264-preset", "ultrafast", "--output", folder.file("out-\(size)")])
        XCTAssertEqual(result.status, 0, result.stderr)
        return clip
    }

    /// ffprobe's `color_space,color_primaries,color_transfer,color_range` of the video.
    func tags(_ clip: String) throws -> String {
        let text = try ExternalProgram.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                                "stream=color_space,color_primaries,color_transfer,color_range",
                                                                "-of", "csv=p=0", clip])
        return String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The middle pixel of the first frame, decoded with `matrix` whatever the tag says
    /// (`in_color_matrix`), limited range; nil `matrix` follows the tag.
    func middle(_ clip: String, size: (Int, Int), matrix: String?) throws -> [Int] {
        let scale = matrix.map { "scale=in_color_matrix=\($0):in_range=tv," } ?? ""
        let rgb = try ExternalProgram.run("/usr/bin/ffmpeg", ["-v", "error", "-i", clip, "-frames:v", "1",
                                                              "-vf", scale + "format=rgb24", "-f", "rawvideo", "-"])
        XCTAssertEqual(rgb.count, size.0 * size.1 * 3)
        let at = ((size.1 / 2) * size.0 + size.0 / 2) * 3
        return rgb.count > at + 2 ? [Int(rgb[at]), Int(rgb[at + 1]), Int(rgb[at + 2])] : []
    }

    func assertRed(_ pixel: [Int], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        // 4 levels: x264 at its default quality and the 8-bit round trip move a flat colour by 1-2.
        XCTAssertEqual(pixel.count, 3, what, file: file, line: line)
        guard pixel.count == 3 else { return }
        XCTAssertGreaterThanOrEqual(pixel[0], 251, "\(what): \(pixel)", file: file, line: line)
        XCTAssertLessThanOrEqual(max(pixel[1], pixel[2]), 4, "\(what): \(pixel)", file: file, line: line)
    }

    func testAnHDClipIsBT709EncodedAndTagged() throws {
        for (size, dimensions) in [("1280x720", (1280, 720)), ("720x1280", (720, 1280))] {
            let clip = try redClip(size)
            XCTAssertEqual(try tags(clip), "tv,bt709,bt709,bt709", size)
            // A player that ignores the tag takes BT.709 for HD: red stays red.
            assertRed(try middle(clip, size: dimensions, matrix: "bt709"), "\(size) decoded as BT.709")
            assertRed(try middle(clip, size: dimensions, matrix: nil), "\(size) decoded as tagged")
        }
    }

    func testAnSDClipIsBT601EncodedAndTagged() throws {
        let clip = try redClip("360x640")
        XCTAssertEqual(try tags(clip), "tv,smpte170m,smpte170m,smpte170m")
        assertRed(try middle(clip, size: (360, 640), matrix: "bt601"), "360x640 decoded as BT.601")
        assertRed(try middle(clip, size: (360, 640), matrix: nil), "360x640 decoded as tagged")
    }
}
