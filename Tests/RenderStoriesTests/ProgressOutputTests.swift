import Foundation
import XCTest

/// What a render prints while it runs: nothing under --quiet, JSON progress lines that know the
/// count, and a reader of them that goes away.
final class ProgressOutputTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()
    let samples = CommandLineTests.packageRoot.appendingPathComponent("samples").path

    /// `--progress json | head -2`: the reader goes, progress stops, the render finishes with its
    /// trace and summary, and exits 0 (it died of SIGPIPE, 141).
    func testAClosedProgressPipeIsIgnored() throws {
        let board = try cli.smallBoard(in: folder, duration: 2)
        let out = folder.file("pipe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPrograms.renderStories)
        process.arguments = ["render", board, "--output", out, "--progress", "json"]
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // The reader of the progress lines goes away before the first one.
        try stderr.fileHandleForReading.close()
        let printed = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "not ended by a signal")
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertTrue(printed.contains("rendered 20 frames"), printed)
        for name in ["summary.json", "lifecycle.jsonl", "frame-000019.png"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + name), name)
        }
    }

    /// With --quiet nothing reaches the terminal, x264's own log lines included (they leaked
    /// when the encoder opened before FFmpeg's log level was set).
    func testQuietMeansQuietWithAClip() throws {
        for attempt in 1...3 {
            let result = try cli.run(["render", cli.demo, "--duration", "0.5", "--size", "90x160", "--quiet",
                                      "--mp4", folder.path + "/q\(attempt).mp4", "--output", folder.path + "/q\(attempt)"])
            XCTAssertEqual(result.status, 0)
            XCTAssertEqual(result.stderr, "", "attempt \(attempt)")
            XCTAssertEqual(result.stdout, "", "attempt \(attempt)")
        }
    }

    /// --progress json gives the frame count from its first line, even for a storyboard without
    /// a duration, and ends with a done line.
    func testProgressJSONKnowsTheCountAndSaysWhenDone() throws {
        let result = try cli.run(["render", cli.demo, "--size", "72x128", "--fps", "5", "--progress", "json",
                                  "--output", folder.file("p")])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stderr.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let counted = try XCTUnwrap(try cli.run(["frames", cli.demo, "--fps", "5"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertEqual((lines.first?["of"] as? Int).map(String.init), counted, "the count, on the first line")
        let done = try XCTUnwrap(lines.last)
        XCTAssertEqual(done["done"] as? Bool, true)
        XCTAssertEqual((done["frames"] as? Int).map(String.init), counted)
        XCTAssertEqual(done["interrupted"] as? Bool, false)
    }
}
