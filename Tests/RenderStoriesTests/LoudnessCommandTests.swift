import Foundation
import XCTest

/// `render --loudness`: its usage errors (exit 2, naming the flags, nothing written) and the
/// `loudness` object it adds to summary.json.
final class LoudnessCommandTests: XCTestCase {
    let cli = CommandLineRunner()

    func testUsageErrorsExitTwoNamingTheFlags() throws {
        let scratch = ScratchFolder()
        let out = scratch.file("out")
        let cases: [([String], [String])] = [
            (["--loudness", "-14"], ["--loudness needs --mp4"]),
            (["--mp4", scratch.file("a.mp4"), "--loudness", "loud"], ["--loudness", "LUFS", "ebu"]),
            (["--mp4", scratch.file("a.mp4"), "--loudness", "-80"], ["--loudness", "-70 to -5"]),
            (["--mp4", scratch.file("a.mp4"), "--loudness", "0"], ["--loudness", "-70 to -5"]),
            (["--mp4", scratch.file("a.mp4"), "--loudness", "ebu", "--frames", "0..10"], ["--loudness cannot be used with --frames"]),
        ]
        for (arguments, named) in cases {
            let result = try cli.run(["render", cli.demo, "--output", out] + arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            for word in named { XCTAssertTrue(result.stderr.contains(word), "\(arguments) names \(word): \(result.stderr)") }
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "\(arguments): nothing written")
        }
    }

    func testSummaryReportsTheLoudness() throws {
        let scratch = ScratchFolder()
        let out = scratch.file("out")
        let result = try cli.run(["render", cli.demo, "--output", out, "--size", "72x128", "--duration", "2", "--fps", "10",
                                  "--no-png", "--mp4", scratch.file("clip.mp4"), "--loudness", "-20", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/summary.json")))
                                    as? [String: Any])
        let loudness = try XCTUnwrap(summary["loudness"] as? [String: Any], "\(summary)")
        XCTAssertEqual(loudness["target_lufs"] as? Double, -20, "a negative number is the flag's value")
        XCTAssertEqual(loudness["true_peak_limit_dbtp"] as? Double, -1)
        let output = try XCTUnwrap(loudness["output_lufs"] as? Double)
        if loudness["limited_by_true_peak"] as? Bool == false { XCTAssertEqual(output, -20, accuracy: 1) }
        XCTAssertLessThanOrEqual(try XCTUnwrap(loudness["output_true_peak_dbtp"] as? Double), -1)
    }
}
