import CFFmpeg
import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
import StoryPlayerTestSupport
import XCTest

/// Issue 30, item 4: a video's colours come through its own matrix and range. Each video is
/// four solid, saturated bars, encoded losslessly (x264 `-qp 0`) from YUV that ffmpeg made with
/// the matrix and range named, and tagged so (or not at all). The reference is ffmpeg's own
/// conversion of the same file with that matrix and range given explicitly
/// (`scale=in_color_matrix=…:in_range=…`). Tolerance: 6 levels per channel at a bar's middle
/// (scalers round differently by a level or two); the wrong matrix is 15 or more levels off
/// on at least one bar, which the test checks too.
final class ColourMatrixTests: XCTestCase {
    let folder = ScratchFolder()
    static let tolerance = 6
    static let bars = ["0xE01828", "0x18C030", "0x2030E0", "0xE0D020"]

    /// BT.601, BT.709 and BT.2020, limited and full range, each as tagged.
    func testEachTaggedMatrixAndRangeIsHonoured() throws {
        for matrix in ["bt601", "bt709", "bt2020"] {
            for range in ["tv", "pc"] {
                let video = try bars(width: 320, height: 180, matrix: matrix, range: range, tagged: true)
                try assertBars(video, width: 320, height: 180, matrix: matrix, range: range)
            }
        }
    }

    /// Untagged video: BT.709 at HD sizes, BT.601 below, limited range, as players guess.
    func testAnUntaggedVideoGetsTheGuessFromItsSize() throws {
        let hd = try bars(width: 1280, height: 720, matrix: "bt709", range: "tv", tagged: false)
        try assertBars(hd, width: 320, height: 180, matrix: "bt709", range: "tv")
        let sd = try bars(width: 640, height: 360, matrix: "bt601", range: "tv", tagged: false)
        try assertBars(sd, width: 320, height: 180, matrix: "bt601", range: "tv")
        XCTAssertEqual(ColourMatrix.of(colorspace: AVCOL_SPC_UNSPECIFIED, range: AVCOL_RANGE_UNSPECIFIED, width: 720, height: 1280).swsColorspace,
                       ColourMatrix.of(colorspace: AVCOL_SPC_BT709, range: AVCOL_RANGE_MPEG, width: 1, height: 1).swsColorspace)
        XCTAssertFalse(ColourMatrix.isHD(width: 720, height: 576))
    }

    // MARK: - Videos and references

    /// One frame of four bars, converted to YUV with `matrix` and `range` by ffmpeg, and tagged
    /// so when `tagged`.
    private func bars(width: Int, height: Int, matrix: String, range: String, tagged: Bool) throws -> String {
        let path = folder.file("bars-\(width)-\(matrix)-\(range)-\(tagged ? "tagged" : "untagged").mp4")
        let bar = width / 4
        let sources = Self.bars.enumerated().map { "color=c=\($0.element):s=\(bar)x\(height):d=1[c\($0.offset)]" }
        let graph = sources.joined(separator: ";") + ";[c0][c1][c2][c3]hstack=4,"
            + "scale=out_color_matrix=\(matrix):out_range=\(range),format=yuv420p[v]"
        let colorspace = matrix == "bt2020" ? "bt2020nc" : matrix == "bt601" ? "smpte170m" : matrix
        var arguments = ["-v", "error", "-y", "-filter_complex", graph, "-map", "[v]", "-frames:v", "1",
                         "-c:v", "libx264", "-qp", "0", "-preset", "ultrafast"]
        if tagged { arguments += ["-colorspace", colorspace, "-color_range", range] }
        try ExternalProgram.run(TestPrograms.tool("ffmpeg"), arguments + [path])
        return path
    }

    /// Our picture of `video` at `width`×`height` against ffmpeg's with `matrix` and `range` given.
    private func assertBars(_ video: String, width: Int, height: Int, matrix: String, range: String,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let ours = try PictureLoader.load(MediaSource(uri: video, relativeTo: "/"), width: width, height: height, limits: DecodeLimits())
        let theirs = try reference(video, width: width, height: height, matrix: matrix, range: range)
        let wrong = try reference(video, width: width, height: height, matrix: matrix == "bt601" ? "bt709" : "bt601", range: range)
        var widestMiss = 0
        for index in 0..<4 {
            let x = width / 8 + index * width / 4, y = height / 2
            let pixel = ours[x, y], expected = theirs[x * 3 + y * width * 3..<x * 3 + y * width * 3 + 3].map(Int.init)
            let got = [Int(pixel.red), Int(pixel.green), Int(pixel.blue)]
            let off = zip(got, expected).map { abs($0 - $1) }.max() ?? 0
            XCTAssertLessThanOrEqual(off, Self.tolerance, "\(video) bar \(index): \(got), ffmpeg's \(expected)", file: file, line: line)
            let other = wrong[x * 3 + y * width * 3..<x * 3 + y * width * 3 + 3].map(Int.init)
            widestMiss = max(widestMiss, zip(other, expected).map { abs($0 - $1) }.max() ?? 0)
        }
        XCTAssertGreaterThanOrEqual(widestMiss, 15, "the wrong matrix would be seen", file: file, line: line)
    }

    /// ffmpeg's RGB of the video's first frame, converted with the matrix and range given.
    private func reference(_ video: String, width: Int, height: Int, matrix: String, range: String) throws -> [UInt8] {
        let bytes = try ExternalProgram.run(TestPrograms.tool("ffmpeg"), [
            "-v", "error", "-i", video, "-frames:v", "1",
            "-vf", "scale=\(width):\(height):flags=bilinear:in_color_matrix=\(matrix):in_range=\(range),format=rgb24",
            "-f", "rawvideo", "-"])
        guard bytes.count == width * height * 3 else { throw ExternalProgram.Failed(message: "ffmpeg gave \(bytes.count) bytes") }
        return [UInt8](bytes)
    }
}
