import Foundation
import StoryTestSupport
import XCTest

/// The helpers every test target shares (StoryTestSupport): a failure here would show up as
/// puzzling failures everywhere else, so they are checked on their own.
final class TestSupportTests: XCTestCase {
    // MARK: - Scratch folders

    func testAScratchFolderIsRemovedWithItsLastReference() throws {
        var folder: ScratchFolder? = ScratchFolder()
        let path = try XCTUnwrap(folder).path
        try XCTUnwrap(folder).write("a.bin", [1, 2, 3])
        XCTAssertEqual(FileManager.default.contents(atPath: (path as NSString).appendingPathComponent("a.bin")), Data([1, 2, 3]))
        folder = nil
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "the folder and what it held are gone")
    }

    func testTwoScratchFoldersAreApart() {
        XCTAssertNotEqual(ScratchFolder().path, ScratchFolder().path)
    }

    // MARK: - The seeded generator

    /// The first outputs of SplitMix64 from seed 0, as its reference implementation gives them:
    /// a change to the generator would change every seeded test's bytes.
    func testTheSeededGeneratorGivesTheReferenceSequence() {
        var generator = SplitMix64(seed: 0)
        XCTAssertEqual((0..<3).map { _ in generator.next() },
                       [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
    }

    // MARK: - Fixture paths

    func testFixturePathsPointAtCommittedFiles() {
        XCTAssertTrue(FileManager.default.fileExists(atPath: Fixture.sample("demo.json")))
        XCTAssertTrue(FileManager.default.fileExists(atPath: Fixture.testsFolder.appendingPathComponent("Fixtures").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: Fixture.packageRoot.appendingPathComponent("Tests/Support/Python/clock-code.py").path))
    }
}
