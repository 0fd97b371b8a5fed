import Compositor
import Foundation
import XCTest

/// A photo as phones make them: a 192x128 JPEG of four coloured quadrants (no two alike, so each
/// of the eight orientations puts them in a different place), tagged by exiftool; and
/// ImageMagick's upright view of it, which the library's and the CLI's orientation tests
/// compare with.
public enum PhoneCamera {
    public static let stored = (width: 192, height: 128)
    /// Top left, top right, bottom left, bottom right.
    public static let quadrants = ["#e01010", "#10c010", "#1010e0", "#e0e010"]

    /// Orientations 5-8 swap the sides.
    public static func shownSize(orientation: Int) -> (width: Int, height: Int) {
        orientation >= 5 ? (stored.height, stored.width) : stored
    }

    /// Half the shown size: the still and the frames are scaled, and so is the reference.
    public static func canvas(orientation: Int) -> (width: Int, height: Int) {
        let shown = shownSize(orientation: orientation)
        return (shown.width / 2, shown.height / 2)
    }

    /// The photo, tagged `orientation`: big-endian EXIF (as iPhones write it) for odd values,
    /// little-endian (as most Android phones do) for even ones.
    public static func photo(orientation: Int, in folder: ScratchFolder) throws -> String {
        let path = folder.file("photo-\(orientation).jpg")
        let (w, h) = (stored.width / 2, stored.height / 2)
        try ExternalProgram.run(TestPrograms.tool("convert"), [
            "-size", "\(w)x\(h)", "xc:\(quadrants[0])", "xc:\(quadrants[1])", "+append",
            "(", "-size", "\(w)x\(h)", "xc:\(quadrants[2])", "xc:\(quadrants[3])", "+append", ")",
            "-append", "-quality", "92", path])
        let exiftool = try TestPrograms.tool("exiftool")
        try ExternalProgram.run(exiftool, ["-q", "-overwrite_original", "-n", "-ExifByteOrder=\(orientation % 2 == 1 ? "MM" : "II")",
                                           "-Orientation=\(orientation)", path])
        let written = try ExternalProgram.run(exiftool, ["-s3", "-n", "-Orientation", path])
        precondition(String(decoding: written, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "\(orientation)")
        return path
    }

    /// One story of the photo, on a canvas of its shown aspect ratio (so nothing is cropped).
    public static func storyboard(photo: String, width: Int, height: Int, in folder: ScratchFolder) throws -> String {
        let path = folder.file("board-\(UUID()).json")
        let json = #"{"canvas": {"width": \#(width), "height": \#(height), "fps": 10}, "duration": 0.3, "#
            + #""stories": [{"id": "photo", "items": [{"uri": "\#(photo)"}]}]}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// ImageMagick's upright picture, scaled to `width`×`height`.
    public static func reference(_ path: String, width: Int, height: Int) throws -> RGBAImage {
        let bytes = try ExternalProgram.run(TestPrograms.tool("convert"),
                                            [path, "-auto-orient", "-resize", "\(width)x\(height)!", "-depth", "8", "rgba:-"])
        guard bytes.count == width * height * 4 else {
            throw ExternalProgram.Failed(message: "ImageMagick gave \(bytes.count) bytes for a \(width)x\(height) picture")
        }
        return RGBAImage(width: width, height: height, pixels: [UInt8](bytes))
    }

    /// The tolerance: JPEG decoders (FFmpeg's and libjpeg's) and scalers differ by a few levels;
    /// a wrong orientation puts another quadrant's colour there, over 100 levels away.
    public static let tolerance = 16

    /// The PNG at `png` is `width`×`height` and has the same regions as ImageMagick's upright
    /// `photo` at that size (see the other `assertSameRegions`).
    public static func assertSameRegions(_ png: String, _ photo: String, width: Int, height: Int, _ what: String,
                                         file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = try ExternalProgram.run(TestPrograms.tool("convert"), [png, "-depth", "8", "rgba:-"])
        guard bytes.count == width * height * 4 else {
            XCTFail("\(what): the PNG is not \(width)x\(height)", file: file, line: line)
            return
        }
        let ours = RGBAImage(width: width, height: height, pixels: [UInt8](bytes))
        assertSameRegions(ours, try reference(photo, width: width, height: height), what, file: file, line: line)
    }

    /// The pictures' sizes are equal, and in each cell of a 4×4 grid the mean colour of the
    /// cell's middle half (away from the quadrants' edges, where JPEG blurs colours) is within
    /// `tolerance` on every channel.
    public static func assertSameRegions(_ picture: RGBAImage, _ reference: RGBAImage, _ what: String,
                                         file: StaticString = #filePath, line: UInt = #line) {
        guard picture.width == reference.width, picture.height == reference.height else {
            XCTFail("\(what): \(picture.width)x\(picture.height), not \(reference.width)x\(reference.height)", file: file, line: line)
            return
        }
        let cellWidth = picture.width / 4, cellHeight = picture.height / 4
        for row in 0..<4 {
            for column in 0..<4 {
                let xs = (column * cellWidth + cellWidth / 4)..<(column * cellWidth + cellWidth * 3 / 4)
                let ys = (row * cellHeight + cellHeight / 4)..<(row * cellHeight + cellHeight * 3 / 4)
                let ours = mean(picture, xs, ys), theirs = mean(reference, xs, ys)
                let off = zip(ours, theirs).map { abs($0 - $1) }.max() ?? 0
                XCTAssertLessThanOrEqual(off, tolerance, "\(what): cell \(column),\(row) is \(ours), ImageMagick's \(theirs)",
                                         file: file, line: line)
            }
        }
    }

    private static func mean(_ image: RGBAImage, _ xs: Range<Int>, _ ys: Range<Int>) -> [Int] {
        var sums = [0, 0, 0]
        for y in ys {
            for x in xs {
                let pixel = image[x, y]
                sums[0] += Int(pixel.red); sums[1] += Int(pixel.green); sums[2] += Int(pixel.blue)
            }
        }
        return sums.map { $0 / max(1, xs.count * ys.count) }
    }
}
