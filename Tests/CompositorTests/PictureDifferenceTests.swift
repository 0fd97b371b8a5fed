import Compositor
import XCTest

/// SSIM and PSNR of two pictures (`PictureDifference`): 1 and none for the same picture, the
/// published PSNR of a known error, and a difference seen only where it is.
final class PictureDifferenceTests: XCTestCase {
    func testTheSamePictureIsSSIMOneWithNoPSNR() {
        let picture = TestPictures.noisyBands(width: 64, height: 48)
        let difference = PictureDifference(picture, picture)
        XCTAssertEqual(difference.ssim, 1)
        XCTAssertEqual(difference.ssimPlanes, [1, 1, 1])
        XCTAssertNil(difference.psnr)
        XCTAssertTrue(difference.isIdentical)
    }

    func testPSNROfAKnownError() {
        // Grey 128 against grey 130: luma differs by 2 levels (×219/255 → 1.72, rounded to 2),
        // chroma not at all; mean squared error 4 × 4/6, PSNR 10·log10(255² / (8/3)).
        let a = RGBAImage(width: 16, height: 16, fill: RGBAColor(red: 128, green: 128, blue: 128))
        let b = RGBAImage(width: 16, height: 16, fill: RGBAColor(red: 130, green: 130, blue: 130))
        let difference = PictureDifference(a, b)
        XCTAssertEqual(try XCTUnwrap(difference.psnr), 10 * log10(255 * 255 / (8.0 / 3)), accuracy: 1e-9)
        XCTAssertEqual(difference.ssimPlanes[1], 1)
        XCTAssertLessThan(difference.ssimPlanes[0], 1)
    }

    func testAnEdgeMovedOnePixelLowersSSIMOnlyWhereItIs() {
        func edge(at column: Int) -> RGBAImage {
            var image = TestPictures.ramp(width: 96, height: 64)
            image.fill(RGBAColor(red: 20, green: 40, blue: 200), columns: column..<96, rows: 0..<64)
            return image
        }
        let moved = PictureDifference(edge(at: 50), edge(at: 51))
        XCTAssertLessThan(moved.ssim, 1)
        XCTAssertGreaterThan(moved.ssim, 0.9)
        XCTAssertEqual(PictureDifference(edge(at: 50), edge(at: 51), region: TileRect(x: 0, y: 0, width: 40, height: 64)).ssim, 1)
        XCTAssertLessThan(PictureDifference(edge(at: 50), edge(at: 51), region: TileRect(x: 40, y: 0, width: 20, height: 64)).ssim,
                          moved.ssim, "the region around the edge is all of the difference")
    }

    func testUnrelatedPicturesScoreLow() {
        let a = TestPictures.noisyBands(width: 64, height: 64, seed: 1)
        let b = TestPictures.noisyBands(width: 64, height: 64, seed: 2)
        XCTAssertLessThan(PictureDifference(a, b).ssim, 0.8)
    }
}
