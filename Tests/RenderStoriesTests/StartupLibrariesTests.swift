import XCTest

/// What every process loads before its first frame. libavfilter and the 30-odd libraries it
/// brings are opened only when a filter graph is first built (`FilterLibrary`): they cost about
/// 60 ms of CPU per process, which every shard of a sharded render paid again.
final class StartupLibrariesTests: XCTestCase {
    private let cli = CommandLineRunner()

    /// The libraries the dynamic loader opened for `arguments` (`LD_DEBUG=files`, which glibc's
    /// loader writes to standard error, a line per file it opens).
    private func loadedFiles(_ arguments: [String]) throws -> (status: Int32, log: String) {
        let outcome = try ExternalProgram.outcome("/usr/bin/env", ["LD_DEBUG=files", CommandLineTests.executable] + arguments,
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
