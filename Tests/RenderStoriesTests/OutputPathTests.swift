import Foundation
import XCTest

/// Where a render's outputs go: each makes its folders, and a path it cannot use is refused in plain
/// words before any work.
final class OutputPathTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()
    let samples = CommandLineTests.packageRoot.appendingPathComponent("samples").path

    /// Every output makes its folders, as --output does: the contact sheet, the timeline and the
    /// MP4 into folders that do not exist yet.
    func testEveryOutputMakesItsFolders() throws {
        let board = try cli.smallBoard(in: folder)
        let sheet = folder.file("sheets/a/s.png"), timeline = folder.file("timelines/b/t.png"), clip = folder.file("clips/c/c.mp4")
        let result = try cli.run(["render", board, "--output", folder.file("out/deep"), "--contact-sheet", sheet,
                                  "--sheet-frames", "4", "--timeline", timeline, "--mp4", clip, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for path in [sheet, timeline, clip, folder.file("out/deep/summary.json")] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), path)
        }
    }

    /// A file where a folder should be is named, with the path given and why in plain words, for
    /// the output folder and for every output file; no Foundation error number.
    func testAFileInTheWayIsSaidInPlainWords() throws {
        let board = try cli.smallBoard(in: folder)
        let blocker = folder.file("blocker")
        FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8))
        for flags in [["--output", blocker + "/out"],
                      ["--output", folder.file("o1"), "--contact-sheet", blocker + "/s.png"],
                      ["--output", folder.file("o2"), "--timeline", blocker + "/t/t.png"],
                      ["--output", folder.file("o3"), "--mp4", blocker + "/c.mp4"]] {
            let result = try cli.run(["render", board] + flags + ["--quiet"])
            XCTAssertEqual(result.status, 1, "\(flags)")
            XCTAssertTrue(result.stderr.contains(flags.last!), "names the path given: \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("\(blocker) is a file, not a folder"), result.stderr)
            XCTAssertFalse(result.stderr.contains("NSCocoaErrorDomain"), result.stderr)
            XCTAssertFalse(result.stderr.contains(".tmp"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("o1")), "refused before the output folder is made")
    }

    /// /proc takes no new folder: said so, not "The file doesn't exist".
    func testAFolderInProcIsRefusedInPlainWords() throws {
        let board = try cli.smallBoard(in: folder)
        let target = "/proc/live-stories-\(getpid())"
        let result = try cli.run(["render", board, "--output", target, "--quiet"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains(target), result.stderr)
        XCTAssertTrue(result.stderr.contains("/proc does not take new files or folders"), result.stderr)
        XCTAssertFalse(result.stderr.contains("doesn’t exist") || result.stderr.contains("doesn't exist"), result.stderr)
        let sheet = try cli.run(["render", board, "--output", folder.file("p"), "--contact-sheet", "/proc/s.png", "--quiet"])
        XCTAssertEqual(sheet.status, 1)
        XCTAssertTrue(sheet.stderr.contains("/proc/s.png") && sheet.stderr.contains("does not take new files"), sheet.stderr)
    }

    /// `still --output nodir/s.png` makes nodir, as render does; a still that cannot be written
    /// names the path given, never the temporary file.
    func testAStillMakesItsFolderAndNamesThePathGiven() throws {
        let board = try cli.smallBoard(in: folder)
        let made = try cli.run(["still", board, "--page", "0", "--output", "nodir/s.png"], in: folder.path)
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.file("nodir/s.png")))
        FileManager.default.createFile(atPath: folder.file("blocker"), contents: Data())
        let refused = try cli.run(["still", board, "--page", "0", "--output", "blocker/s.png"], in: folder.path)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("blocker/s.png") && refused.stderr.contains("blocker is a file, not a folder"),
                      refused.stderr)
        XCTAssertFalse(refused.stderr.contains(".tmp"), refused.stderr)
        // A folder where the picture should go: named, not its temporary file.
        try FileManager.default.createDirectory(atPath: folder.file("taken.png"), withIntermediateDirectories: true)
        let taken = try cli.run(["still", board, "--page", "0", "--output", "taken.png"], in: folder.path)
        XCTAssertEqual(taken.status, 1)
        XCTAssertTrue(taken.stderr.contains("cannot write taken.png: taken.png is a folder"), taken.stderr)
        XCTAssertFalse(taken.stderr.contains(".tmp"), taken.stderr)
    }

    /// Refused before anything is made: no output folder, no clip folder; a usage error.
    func testAnOddSizeWithAnMP4CreatesNothing() throws {
        let board = try cli.smallBoard(in: folder)
        let out = folder.file("odd")
        let result = try cli.run(["render", board, "--size", "73x128", "--mp4", folder.file("clips/c.mp4"), "--output", out])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("even width and height"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "no output folder")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("clips")), "no clip folder")
    }

    /// A folder where the MP4 should go is refused before any work, with the path given, not
    /// after the whole render with the system's words about the rename.
    func testAFolderWhereTheMP4GoesIsRefusedFirst() throws {
        let clip = folder.file("clip.mp4")
        try FileManager.default.createDirectory(atPath: clip, withIntermediateDirectories: true)
        let result = try cli.run(["render", cli.demo, "--size", "72x128", "--mp4", clip, "--output", folder.file("out"), "--quiet"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("\(clip) is a folder, not a file"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("out/frame-000000.png")), "refused before any frame")
    }
}
