import XCTest

/// What every process loads before its first frame. libavfilter and the 30-odd libraries it
/// brings are opened only when a filter graph is first built (`FilterLibrary`): they cost about
/// 60 ms of CPU per process, which every shard of a sharded render paid again. libheif and its
/// HEVC plugin (libde265) are opened by the first HEIF photo (`HEIFLibrary`): about 7 ms.
final class StartupLibrariesTests: XCTestCase {
    private let cli = CommandLineRunner()

    /// The libraries the dynamic loader opened for `arguments` (`LD_DEBUG=files`, which glibc's
    /// loader writes to standard error, a line per file it opens).
    private func loadedFiles(_ arguments: [String]) throws -> (status: Int32, log: String) {
        let outcome = try ExternalProgram.outcome("/usr/bin/env", ["LD_DEBUG=files", TestPrograms.renderStories] + arguments,
                                                  in: CommandLineTests.packageRoot.path)
        return (outcome.status, String(decoding: outcome.stderr, as: UTF8.self))
    }

    func testAProcessThatBuildsNoFilterNeverLoadsLibavfilter() throws {
        let (status, log) = try loadedFiles(["--version"])
        XCTAssertEqual(status, 0, log)
        // The control: the loader's log is there, and names the FFmpeg libraries that are linked.
        XCTAssertTrue(log.contains("libavformat.so"), String(log.prefix(2000)))
        XCTAssertFalse(log.contains("libavfilter.so"), "libavfilter is loaded at start")
        XCTAssertFalse(log.contains("libplacebo"), "libavfilter's dependencies are loaded at start")
    }

    /// A render of photos and videos that are not HEIF opens neither libheif nor libavfilter.
    func testARenderWithoutHEIFPhotosOrFiltersLoadsNeither() throws {
        let folder = ScratchFolder()
        let (status, log) = try loadedFiles(["render", cli.demo, "--output", folder.file("out"), "--size", "90x160", "--fps", "5",
                                             "--duration", "0.6", "--quiet"])
        XCTAssertEqual(status, 0, String(log.suffix(2000)))
        XCTAssertTrue(log.contains("libavcodec.so"), String(log.prefix(2000)))
        XCTAssertFalse(log.contains("libheif.so"), "libheif is loaded without a HEIF photo")
        XCTAssertFalse(log.contains("libde265"), "libheif's HEVC plugin is loaded without a HEIF photo")
        XCTAssertFalse(log.contains("libavfilter.so"), "libavfilter is loaded without a filter")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.file("out/frame-000002.png")))
    }

    /// A HEIC photo opens libheif when it is first read, and shows: the still has the photo's
    /// colours (a story that failed would show an error card, and the loader's log names a
    /// library it tried to open even when that failed).
    func testAHEICPhotoOpensLibheif() throws {
        let folder = ScratchFolder()
        let photo = folder.file("photo.heic")
        let source = folder.file("source.png")
        try ExternalProgram.run(TestPrograms.tool("convert"), ["-size", "64x96", "gradient:red-blue", "PNG24:" + source])
        try ExternalProgram.run(TestPrograms.tool("heif-enc"), ["-q", "90", source, "-o", photo])
        let board = try PhoneCamera.storyboard(photo: photo, width: 64, height: 96, in: folder)
        let still = folder.file("still.png")
        let (status, log) = try loadedFiles(["still", board, "--page", "0", "--no-overlay", "--output", still])
        XCTAssertEqual(status, 0, String(log.suffix(2000)))
        XCTAssertTrue(log.contains("libheif.so"), "the HEIC photo did not open libheif")
        try PhoneCamera.assertSameRegions(still, source, width: 64, height: 96, "the HEIC photo's still")
    }

    /// An animated export builds a filter graph (`fps`, `palettegen`): libavfilter is opened then,
    /// and the GIF is written.
    func testAnAnimationOpensLibavfilterWhenItBuildsItsGraph() throws {
        let folder = ScratchFolder()
        let gif = folder.file("a.gif")
        let (status, log) = try loadedFiles(["render", cli.demo, "--output", folder.file("out"), "--size", "90x160", "--fps", "5",
                                             "--duration", "0.6", "--quiet", "--gif", gif])
        XCTAssertEqual(status, 0, String(log.suffix(2000)))
        XCTAssertTrue(log.contains("libavfilter.so"), "the GIF's graph did not open libavfilter")
        XCTAssertGreaterThan((try FileManager.default.attributesOfItem(atPath: gif)[.size] as? Int) ?? 0, 0)
    }
}
