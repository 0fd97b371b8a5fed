import Compositor
import Foundation
import XCTest

/// `still --item`, `--drag` and `--pull`: the states a designer previews, each the picture a
/// render of the same state shows.
final class StillViewerStateTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// Two stories of photos, story one with two items of different colours; `script` added.
    func board(_ name: String, script: String = "") throws -> String {
        for (file, colour) in [("one-a.png", RGBAColor(red: 220, green: 60, blue: 40)), ("one-b.png", RGBAColor(red: 40, green: 200, blue: 60)),
                               ("two.png", RGBAColor(red: 40, green: 60, blue: 220))]
        where !FileManager.default.fileExists(atPath: folder.file(file)) {
            var picture = RGBAImage(width: 45, height: 80, fill: colour)
            picture.fill(.white, columns: 10..<30, rows: 20..<50)
            try picture.writePNG(to: folder.file(file))
        }
        return folder.write("\(name).json", Array("""
        {"canvas": {"width": 90, "height": 160, "fps": 10}, "duration": 2,
         "transition": {"style": "cube", "duration": 0.5},
         "script": [\(script)],
         "stories": [{"id": "one", "items": [{"uri": "one-a.png", "duration": 3}, {"uri": "one-b.png", "duration": 3}]},
                     {"id": "two", "items": [{"uri": "two.png", "duration": 3}]}]}
        """.utf8))
    }

    func still(_ board: String, _ arguments: [String], name: String) throws -> RGBAImage {
        let png = folder.file(name + ".png")
        let result = try cli.run(["still", board, "--no-overlay", "--output", png] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try RGBAImage(contentsOfPNG: png)
    }

    func testItemShowsAnotherItemOfTheRestingStory() throws {
        let plain = try board("plain")
        XCTAssertEqual(try still(plain, ["--page", "0"], name: "first")[5, 5], RGBAColor(red: 220, green: 60, blue: 40))
        XCTAssertEqual(try still(plain, ["--page", "0", "--item", "1"], name: "second")[5, 5], RGBAColor(red: 40, green: 200, blue: 60))
        // Mid-turn, the story turned from shows item 1, the next one its first.
        let turning = try still(plain, ["--page", "0.5", "--item", "1"], name: "turning")
        XCTAssertEqual(turning[2, 80], RGBAColor(red: 40, green: 200, blue: 60).scaledForShading(turning[2, 80]))
        let refused = try cli.run(["still", plain, "--page", "1", "--item", "1", "--output", folder.file("x.png")])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("--item: story two has items 0 to 0, not 1"), refused.stderr)
    }

    func testDragIsThePageOffsetHeld() throws {
        let plain = try board("plain")
        XCTAssertEqual(try still(plain, ["--page", "0", "--drag", "0.3"], name: "drag"), try still(plain, ["--page", "0.3"], name: "page"))
        XCTAssertEqual(try cli.run(["still", plain, "--page", "0", "--drag", "1.5", "--output", folder.file("x.png")]).status, 2)
    }

    /// A still pulled 40 % down is the frame a render shows once a pull has come to 0.4.
    func testPullIsTheFrameAPullShows() throws {
        let pulled = try board("pulled", script: #"{"at": 0.5, "action": "pull", "to": 0.4, "over": 0.2}, {"at": 1.5, "action": "release"}"#)
        let out = folder.file("pulled-render")
        let result = try cli.run(["render", pulled, "--no-overlay", "--quiet", "--output", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let frame = try RGBAImage(contentsOfPNG: out + "/frame-000010.png")
        let still = try still(try board("plain"), ["--page", "0", "--pull", "0.4", "--time", "1"], name: "pull")
        XCTAssertEqual(still, frame)
        XCTAssertEqual(still[45, 10], .black, "the top of the screen is the background behind the pulled story")
        XCTAssertEqual(try cli.run(["still", pulled, "--page", "0", "--pull", "1.2", "--output", folder.file("x.png")]).status, 2)
    }
}

private extension RGBAColor {
    /// `self` as the cube's shading darkens it where `sample` was taken: equal when the sample
    /// is this colour scaled by one brightness (within rounding), else `self` (so the test fails).
    func scaledForShading(_ sample: RGBAColor) -> RGBAColor {
        let ratio = Double(sample.green) / Double(green)
        let scaled = RGBAColor(red: UInt8((Double(red) * ratio).rounded()), green: sample.green,
                               blue: UInt8((Double(blue) * ratio).rounded()))
        let close = abs(Int(scaled.red) - Int(sample.red)) <= 2 && abs(Int(scaled.blue) - Int(sample.blue)) <= 2
        return close ? sample : self
    }
}
