import Foundation
import XCTest

/// Issue 30, item 1, through the CLI: a phone's photo, tagged with any of the eight EXIF
/// orientations, is shown upright by `still` and `render`, and `probe` gives its size as shown
/// and the tag. Photos are made as phones make them (exiftool writes the tag, in both byte
/// orders) and every picture is compared with ImageMagick's `-auto-orient` of the same file,
/// both read back through ImageMagick.
final class PhotoOrientationCLITests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    func testProbeGivesTheShownSizeAndTheOrientation() throws {
        for orientation in 1...8 {
            let photo = try PhoneCamera.photo(orientation: orientation, in: folder)
            let result = try cli.run(["probe", "--json", photo])
            XCTAssertEqual(result.status, 0, result.stderr)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let shown = PhoneCamera.shownSize(orientation: orientation)
            XCTAssertEqual(object["width"] as? Int, shown.width, "orientation \(orientation): \(result.stdout)")
            XCTAssertEqual(object["height"] as? Int, shown.height, "orientation \(orientation): \(result.stdout)")
            XCTAssertEqual(object["orientation"] as? Int, orientation, result.stdout)
            let text = try cli.run(["probe", photo])
            XCTAssertTrue(text.stdout.contains("size         \(shown.width)x\(shown.height)"), text.stdout)
            XCTAssertTrue(text.stdout.contains("orientation  \(orientation)"), text.stdout)
        }
    }

    func testStillShowsEveryOrientationUpright() throws {
        for orientation in 1...8 {
            let photo = try PhoneCamera.photo(orientation: orientation, in: folder)
            let (width, height) = PhoneCamera.canvas(orientation: orientation)
            let board = try PhoneCamera.storyboard(photo: photo, width: width, height: height, in: folder)
            let still = folder.file("still-\(orientation).png")
            let result = try cli.run(["still", board, "--page", "0", "--no-overlay", "--output", still])
            XCTAssertEqual(result.status, 0, result.stderr)
            try PhoneCamera.assertSameRegions(still, photo, width: width, height: height, "still, orientation \(orientation)")
        }
    }

    /// A rendered frame of a playing photo item: the turned one (6, every portrait photo) and a
    /// mirrored turned one (7, the transverse).
    func testRenderShowsThePhotoUpright() throws {
        for orientation in [6, 7] {
            let photo = try PhoneCamera.photo(orientation: orientation, in: folder)
            let (width, height) = PhoneCamera.canvas(orientation: orientation)
            let board = try PhoneCamera.storyboard(photo: photo, width: width, height: height, in: folder)
            let frames = folder.file("frames-\(orientation)")
            let result = try cli.run(["render", board, "--no-overlay", "--output", frames, "--quiet"])
            XCTAssertEqual(result.status, 0, result.stderr)
            try PhoneCamera.assertSameRegions(frames + "/frame-000001.png", photo, width: width, height: height,
                                              "render, orientation \(orientation)")
        }
    }
}

// MARK: - Photos as phones make them, and ImageMagick's view of them

/// A 192x128 JPEG of four coloured quadrants, none alike, so that each of the eight
/// orientations puts them somewhere else (the same photo as StoryPlayerTests' `PhoneMedia`).
enum PhoneCamera {
    static let stored = (width: 192, height: 128)
    static let quadrants = ["#e01010", "#10c010", "#1010e0", "#e0e010"] // top left, top right, bottom left, bottom right

    static func shownSize(orientation: Int) -> (width: Int, height: Int) {
        orientation >= 5 ? (stored.height, stored.width) : stored
    }

    /// Half the shown size: the still and the frames are scaled, and so is the reference.
    static func canvas(orientation: Int) -> (width: Int, height: Int) {
        let shown = shownSize(orientation: orientation)
        return (shown.width / 2, shown.height / 2)
    }

    /// Big-endian EXIF (iPhones) for odd values, little-endian (most Android phones) for even.
    static func photo(orientation: Int, in folder: ScratchFolder) throws -> String {
        let path = folder.file("photo-\(orientation).jpg")
        let (w, h) = (stored.width / 2, stored.height / 2)
        try run(tool("convert"), ["-size", "\(w)x\(h)", "xc:\(quadrants[0])", "xc:\(quadrants[1])", "+append",
                                  "(", "-size", "\(w)x\(h)", "xc:\(quadrants[2])", "xc:\(quadrants[3])", "+append", ")",
                                  "-append", "-quality", "92", path])
        try run(tool("exiftool"), ["-q", "-overwrite_original", "-n", "-ExifByteOrder=\(orientation % 2 == 1 ? "MM" : "II")",
                                   "-Orientation=\(orientation)", path])
        return path
    }

    /// One story of the photo, on a canvas of its shown aspect ratio (so nothing is cropped).
    static func storyboard(photo: String, width: Int, height: Int, in folder: ScratchFolder) throws -> String {
        let path = folder.file("board-\(UUID()).json")
        let json = #"{"canvas": {"width": \#(width), "height": \#(height), "fps": 10}, "duration": 0.3, "#
            + #""stories": [{"id": "photo", "items": [{"uri": "\#(photo)"}]}]}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The tolerance: JPEG decoders (FFmpeg's and libjpeg's) and scalers differ by a few levels;
    /// a wrong orientation puts another quadrant's colour there, over 100 levels away.
    static let tolerance = 16

    /// `png` is `width`×`height`, and in each cell of a 4×4 grid the mean colour of the cell's
    /// middle half (away from the quadrants' edges, where JPEG blurs colours) is within
    /// `tolerance` of ImageMagick's upright `photo` scaled to that size, on every channel.
    static func assertSameRegions(_ png: String, _ photo: String, width: Int, height: Int, _ what: String,
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        let ours = try pixels(png, [])
        let theirs = try pixels(photo, ["-auto-orient", "-resize", "\(width)x\(height)!"])
        guard ours.count == width * height * 4 else {
            XCTFail("\(what): the PNG is not \(width)x\(height)", file: file, line: line)
            return
        }
        XCTAssertEqual(theirs.count, ours.count, what, file: file, line: line)
        let cellWidth = width / 4, cellHeight = height / 4
        for row in 0..<4 {
            for column in 0..<4 {
                let xs = (column * cellWidth + cellWidth / 4)..<(column * cellWidth + cellWidth * 3 / 4)
                let ys = (row * cellHeight + cellHeight / 4)..<(row * cellHeight + cellHeight * 3 / 4)
                let a = mean(ours, width, xs, ys), b = mean(theirs, width, xs, ys)
                let off = zip(a, b).map { abs($0 - $1) }.max() ?? 0
                XCTAssertLessThanOrEqual(off, tolerance, "\(what): cell \(column),\(row) is \(a), ImageMagick's \(b)",
                                         file: file, line: line)
            }
        }
    }

    /// A picture's RGBA bytes as ImageMagick reads it, after `operations`.
    private static func pixels(_ path: String, _ operations: [String]) throws -> [UInt8] {
        [UInt8](try run(tool("convert"), [path] + operations + ["-depth", "8", "rgba:-"]))
    }

    private static func mean(_ bytes: [UInt8], _ width: Int, _ xs: Range<Int>, _ ys: Range<Int>) -> [Int] {
        var sums = [0, 0, 0]
        for y in ys {
            for x in xs {
                for c in 0..<3 { sums[c] += Int(bytes[(y * width + x) * 4 + c]) }
            }
        }
        return sums.map { $0 / max(1, xs.count * ys.count) }
    }

    /// The program's path. Missing, the test is skipped on a developer's machine and fails under
    /// `CI=true` (`make test` installs both tools).
    static func tool(_ name: String) throws -> String {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        let found = folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        var missing = found == nil ? "\(name) is not installed (make test installs it)" : nil
        if let found, name == "convert",
           !String(decoding: (try? run(found, ["-version"])) ?? Data(), as: UTF8.self).contains("Version: ImageMagick") {
            missing = "ImageMagick is not installed (make test installs it)"
        }
        if let missing {
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw ExternalProgram.Failed(message: missing) }
            throw XCTSkip(missing)
        }
        return found!
    }

    /// Runs `program` and gives its standard output; a failure fails the test.
    @discardableResult
    static func run(_ program: String, _ arguments: [String]) throws -> Data {
        try ExternalProgram.run(program, arguments)
    }
}
