import Foundation
@testable import StoryModel
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

/// Files cut short (a download or a copy that stopped): found from their own structure, and
/// named in the render's notices, while the render shows what they hold.
final class CutShortFileTests: XCTestCase {
    private func cut(_ file: String, keeping fraction: Double, into folder: ScratchFolder, as name: String) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let path = folder.file(name)
        try bytes.prefix(Int(Double(bytes.count) * fraction)).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testWholeFilesAreNotCutShort() {
        for file in [Fixture.sample("sunset.jpg"), Fixture.sample("home.jpg"), Fixture.sample("beach.mp4"),
                     Fixture.path("counter.mp4"), Fixture.path("tone.m4a"), Fixture.path("odd.png")] {
            XCTAssertNil(CutShortCheck.reason(forFileAt: file), file)
        }
    }

    func testAJPEGCutOffMidPictureIsFound() throws {
        let folder = ScratchFolder()
        let half = try cut(Fixture.sample("sunset.jpg"), keeping: 0.5, into: folder, as: "half.jpg")
        let reason = try XCTUnwrap(CutShortCheck.reason(forFileAt: half))
        XCTAssertTrue(reason.contains("end-of-image"), reason)
        let headerOnly = try cut(Fixture.sample("sunset.jpg"), keeping: 0.002, into: folder, as: "head.jpg")
        XCTAssertNotNil(CutShortCheck.reason(forFileAt: headerOnly), "cut off inside its first segments")
    }

    /// Phone makers append data after the picture (Samsung's trailer, a second picture of an
    /// MPO): a JPEG ends at its end-of-image marker, whatever follows.
    func testBytesAfterTheEndOfImageAreNotRead() throws {
        let folder = ScratchFolder()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Fixture.sample("sunset.jpg")))
        bytes.append(contentsOf: Array("SEFH trailer".utf8) + [0xFF, 0xD8, 0xFF, 0xE1, 0x00])
        let path = folder.file("trailer.jpg")
        try bytes.write(to: URL(fileURLWithPath: path))
        XCTAssertNil(CutShortCheck.reason(forFileAt: path))
    }

    /// A progressive JPEG: scans, with tables between them, each scan's data holding stuffed
    /// bytes (FF 00) and restart markers (FF D0-D7), which are not the end of the scan.
    func testEveryScanOfAProgressiveJPEGIsWalked() {
        let soi: [UInt8] = [0xFF, 0xD8]
        let app0: [UInt8] = [0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46]
        let scan: [UInt8] = [0xFF, 0xDA, 0x00, 0x03, 0x01, 0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD3, 0x56]
        let table: [UInt8] = [0xFF, 0xC4, 0x00, 0x05, 0x10, 0x01, 0x02]
        let eoi: [UInt8] = [0xFF, 0xD9]
        XCTAssertNil(CutShortCheck.jpegReason(soi + app0 + scan + table + scan + eoi))
        XCTAssertEqual(CutShortCheck.jpegReason(soi + app0 + scan + table + scan),
                       "its picture data stops before the end-of-image marker")
        XCTAssertEqual(CutShortCheck.jpegReason(soi + app0 + scan + Array(table.prefix(5))), "its FFC4 marker segment is cut off")
        XCTAssertEqual(CutShortCheck.jpegReason(soi + app0 + scan + [0xFF]), "its picture data stops before the end-of-image marker",
                       "cut after the first byte of a marker")
        XCTAssertNil(CutShortCheck.jpegReason(soi + app0 + scan + [0xFF, 0xFF, 0xFF] + eoi), "fill bytes before the end")
        XCTAssertNil(CutShortCheck.jpegReason(soi + [0x00, 0x01]), "not a marker where one belongs: the decoder's to judge")
    }

    func testAnMP4CutOffInItsMediaDataIsFound() throws {
        let folder = ScratchFolder()
        let half = try cut(Fixture.sample("beach.mp4"), keeping: 0.5, into: folder, as: "half.mp4")
        let reason = try XCTUnwrap(CutShortCheck.reason(forFileAt: half))
        XCTAssertTrue(reason.contains("box says"), reason)
    }

    func testBoxSizesAreReadAsTheStandardSays() {
        func boxes(_ bytes: [UInt8]) -> String? {
            CutShortCheck.boxReason(size: UInt64(bytes.count)) { offset, count in
                Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
            }
        }
        let ftyp: [UInt8] = [0, 0, 0, 12] + Array("ftypisom".utf8)
        let toTheEnd: [UInt8] = [0, 0, 0, 0] + Array("mdat".utf8) + [1, 2, 3]
        let large: [UInt8] = [0, 0, 0, 1] + Array("mdat".utf8) + [0, 0, 0, 0, 0, 0, 0, 20] + [1, 2, 3, 4]
        XCTAssertNil(boxes(ftyp + toTheEnd), "size 0: the box runs to the end of the file")
        XCTAssertNil(boxes(ftyp + large), "a 64-bit size")
        XCTAssertEqual(boxes(ftyp + Array(large.dropLast())), "its mdat box says 20 bytes, and the file ends 19 bytes into it")
        XCTAssertNil(boxes(ftyp + [0, 0, 0, 3] + Array("junk".utf8)), "a size no box has: the decoder's to judge")
    }

    /// The render goes on with what the files hold, and its notices name each file by its
    /// JSON path; a file named twice is named once.
    func testARenderNamesTheFilesCutShortInItsNotices() throws {
        let folder = ScratchFolder()
        _ = try cut(Fixture.sample("sunset.jpg"), keeping: 0.5, into: folder, as: "half.jpg")
        _ = try cut(Fixture.sample("beach.mp4"), keeping: 0.5, into: folder, as: "half.mp4")
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 1,
         "stories": [{"id": "a", "items": [{"uri": "half.jpg", "duration": 0.5}, {"uri": "half.mp4"}]},
                     {"id": "b", "poster": "half.jpg", "items": [{"uri": "\(Fixture.path("counter.mp4"))"}]}]}
        """, folder: folder.path)
        let (summary, _, _) = try render(board)
        let cutShort = summary.notices.filter { $0.contains("cut short") }
        XCTAssertEqual(cutShort.count, 2, "\(summary.notices)")
        XCTAssertTrue(cutShort.contains { $0.hasPrefix("stories[0].items[0].uri: ") && $0.contains("half.jpg") }, "\(cutShort)")
        XCTAssertTrue(cutShort.contains { $0.hasPrefix("stories[0].items[1].uri: ") && $0.contains("half.mp4") }, "\(cutShort)")
        XCTAssertEqual(summary.frames, 10, "the render goes on")
    }
}
