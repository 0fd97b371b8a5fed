import Foundation
import XCTest

/// `check` of what is not a trace says what it expected (exit 2), a render's folder is checked
/// by its trace, a shard's trace checked as a whole render's says to use --shard, and the
/// violations come in the trace's line order.
final class CheckInputTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// A one-photo render of 2 s at 10 fps into `name` (`extra`: more of render's options).
    private func render(_ name: String, _ extra: [String] = []) throws -> String {
        let photo = CommandLineTests.packageRoot.appendingPathComponent("samples/sunset.jpg").path
        let board = folder.file("board.json")
        try Data(#"{"canvas": {"width": 90, "height": 160, "fps": 10}, "stories": [{"id": "a", "items": [{"uri": "\#(photo)", "duration": 1}]}, {"id": "b", "items": [{"uri": "\#(photo)", "duration": 1}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: board))
        let out = folder.file(name)
        let result = try cli.run(["render", board, "--output", out, "--quiet"] + extra)
        XCTAssertEqual(result.status, 0, result.stderr)
        return out
    }

    func testSomethingThatIsNotATraceIsAUsageError() throws {
        let out = try render("whole")
        for given in [out + "/summary.json", out + "/frame-000003.png"] {
            let result = try cli.run(["check", given])
            XCTAssertEqual(result.status, 2, "\(given): \(result.stdout)")
            XCTAssertEqual(result.stdout, "", "no violations listed for \(given)")
            XCTAssertTrue(result.stderr.contains("error: \(given) is not a lifecycle trace: check reads the lifecycle.jsonl"), result.stderr)
        }
        let summary = try cli.run(["check", out + "/summary.json"])
        XCTAssertTrue(summary.stderr.contains("the trace beside it is \(out)/lifecycle.jsonl"), summary.stderr)
    }

    func testAFolderIsCheckedByItsTrace() throws {
        let out = try render("whole")
        let result = try cli.run(["check", out])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("ok: lifecycle holds"), result.stdout)
        let empty = folder.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let none = try cli.run(["check", empty])
        XCTAssertEqual(none.status, 2, none.stdout)
        XCTAssertTrue(none.stderr.contains("\(empty) is a folder without a render's trace"), none.stderr)
    }

    func testAShardsTraceCheckedWithoutShardSaysToUseIt() throws {
        let out = try render("shard", ["--frames", "5..15"])
        let plain = try cli.run(["check", out + "/lifecycle.jsonl"])
        XCTAssertEqual(plain.status, 1, plain.stdout)
        XCTAssertTrue(plain.stderr.contains("note: this is a shard's trace (frames 5..<15, its summary.json's frame_range)"), plain.stderr)
        XCTAssertTrue(plain.stderr.contains("check it with --shard"), plain.stderr)
        let shard = try cli.run(["check", out, "--shard"])
        XCTAssertEqual(shard.status, 0, shard.stdout)
        XCTAssertFalse(shard.stderr.contains("--shard"), shard.stderr)
    }

    /// A play never stopped is found at the trace's end, but printed at its own line.
    func testViolationsComeInLineOrder() throws {
        let trace = folder.file("trace.jsonl")
        try Data("""
            {"t": 0, "wall": 0, "event": "play", "story": "a", "item": 0, "player": 1}
            {"t": 1, "wall": 0, "event": "stop", "story": "a", "item": 0, "player": 2}
            {"t": 1, "wall": 0, "event": "play", "story": "b", "item": 0, "player": 3}
            {"t": 2, "wall": 0, "event": "stop", "story": "b", "item": 0, "player": 3}
            {"t": 2, "wall": 0, "event": "stop", "story": "b", "item": 0, "player": 3}

            """.utf8).write(to: URL(fileURLWithPath: trace))
        let result = try cli.run(["check", trace])
        XCTAssertEqual(result.status, 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.map { $0.split(separator: ":").first.map(String.init) ?? "" }, ["line 1", "line 2", "line 5"], result.stdout)
    }
}
