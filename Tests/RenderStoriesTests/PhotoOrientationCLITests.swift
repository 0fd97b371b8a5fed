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
