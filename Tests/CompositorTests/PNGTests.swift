import Compositor
import Foundation
import XCTest

final class PNGTests: XCTestCase {
    func testRoundTripKeepsEveryPixelWithAlpha() throws {
        var image = TestPictures.ramp(width: 37, height: 23, blue: 99)
        image[3, 4] = RGBAColor(red: 1, green: 2, blue: 3, alpha: 128)
        for filter in PNGFilter.allCases {
            for strategy in PNGStrategy.allCases {
                for level in [0, 1, 6, 9] {
                    let data = try image.pngData(PNGOptions(level: level, filter: filter, strategy: strategy, keepAlpha: true))
                    XCTAssertEqual(try RGBAImage(pngData: data), image, "\(filter) \(strategy) \(level)")
                }
            }
        }
    }

    func testRGBOutputDropsAlphaAndIsSmaller() throws {
        var image = TestPictures.ramp(width: 64, height: 64)
        image[0, 0] = RGBAColor(red: 9, green: 8, blue: 7, alpha: 10)
        let rgb = try image.pngData(PNGOptions(level: 0))
        let rgba = try image.pngData(PNGOptions(level: 0, keepAlpha: true))
        XCTAssertLessThan(rgb.count, rgba.count)
        // Colour type 2 (RGB) in the IHDR chunk, byte 25 of the file.
        XCTAssertEqual(rgb[25], 2)
        XCTAssertEqual(rgba[25], 6)
        let decoded = try RGBAImage(pngData: rgb)
        XCTAssertEqual(decoded[0, 0], RGBAColor(red: 9, green: 8, blue: 7, alpha: 255))
        XCTAssertEqual(decoded[5, 5], image[5, 5])
    }

    func testGarbageIsAnErrorNotACrash() {
        XCTAssertThrowsError(try RGBAImage(pngData: [0x89, 0x50, 0x4E, 0x47, 1, 2, 3]))
    }

    func testAtomicWriteLeavesNoTemporaryFileAndReplacesWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/frame.png"
        try TestPictures.ramp(width: 10, height: 10).writePNG(to: path)
        try TestPictures.solid(.white, width: 4, height: 4).writePNG(to: path)
        XCTAssertEqual(try RGBAImage(contentsOfPNG: path).width, 4)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["frame.png"])
        XCTAssertThrowsError(try TestPictures.ramp(width: 4, height: 4).writePNG(to: folder + "/missing/frame.png"))
    }
}
