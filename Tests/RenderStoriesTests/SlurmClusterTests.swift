import Foundation
import Glibc
import XCTest

/// scripts/render-slurm.sh on a real (single-node) Slurm cluster: an array job of shards, a
/// dependent merge job, one result.
final class SlurmRenderTests: XCTestCase {
    let options = ["--size", "90x160", "--fps", "8"]
    private var running: SlurmCluster?

    private func cluster() throws -> SlurmCluster {
        guard SlurmCluster.isInstalled else {
            throw XCTSkip("slurm-wlm or munge is not installed (make test installs them: scripts/install-deps.sh --test)")
        }
        let cluster = try SlurmCluster()
        running = cluster
        return cluster
    }

    override func tearDown() {
        // Stopped by pid, and its folder removed, whether the test passed or not.
        if let cluster = running {
            cluster.stop()
            XCTAssertEqual(cluster.jobProcesses(), [], "nothing the cluster started outlives it")
        }
        running = nil
        super.tearDown()
    }

    private func renderSlurm(_ cluster: SlurmCluster, _ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let script = CommandLineTests.packageRoot.path + "/scripts/render-slurm.sh"
        return try cluster.run(script, arguments, environment: environment.merging(["RENDER_STORIES": TestPrograms.renderStories]) { $1 })
    }

    private func frames(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("frame-") }.sorted()
    }

    /// Four shards (shard 1 fails its first try and is retried) merge into frames byte-identical
    /// to a single render's, a trace equal to its trace but for wall-clock times that passes plain
    /// `check`, and a clip of every frame joined without re-encoding.
    func testFourShardsOnSlurmEqualASingleRender() throws {
        let cluster = try cluster()
        let cli = CommandLineRunner()
        let folder = ScratchFolder()
        let scratch = folder.path
        let full = try cli.run(["render", cli.demo, "--output", scratch + "/full", "--quiet"] + options)
        XCTAssertEqual(full.status, 0, full.stderr)

        let started = Date()
        let result = try renderSlurm(cluster, [cli.demo, "4", scratch + "/out/board", "--mp4", scratch + "/out/board.mp4"] + options,
                                     environment: ["LIVE_STORIES_FAIL_SHARD_ONCE": "1"])
        XCTAssertEqual(result.status, 0, result.output + "\n" + cluster.logs())
        print("render-slurm.sh: 4 shards and the merge in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        XCTAssertTrue(result.output.contains("submitted 4 shards as array job"), result.output)

        let names = try frames(in: scratch + "/full")
        XCTAssertEqual(names.count, 116)
        XCTAssertEqual(try frames(in: scratch + "/out/board"), names)
        for name in names {
            XCTAssertEqual(FileManager.default.contents(atPath: scratch + "/full/" + name),
                           FileManager.default.contents(atPath: scratch + "/out/board/" + name), name)
        }
        func timeless(_ path: String) throws -> [String] {
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
                $0.replacingOccurrences(of: #""wall": [0-9.]+, "#, with: "", options: .regularExpression)
                    .replacingOccurrences(of: #", "open_ms": .*(?=\})"#, with: "", options: .regularExpression)
            }
        }
        XCTAssertEqual(try timeless(scratch + "/out/board/lifecycle.jsonl"), try timeless(scratch + "/full/lifecycle.jsonl"))
        let check = try cli.run(["check", scratch + "/out/board/lifecycle.jsonl"])
        XCTAssertEqual(check.status, 0, check.stdout)
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch + "/out/board/summary.json"))) as? [String: Any]
        XCTAssertEqual(summary?["frames"] as? Int, 116)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch + "/out/board/shards").sorted(),
                       ["00-lifecycle.jsonl", "01-lifecycle.jsonl", "02-lifecycle.jsonl", "03-lifecycle.jsonl"])

        // Each array task ran its shard; shard 1 was tried again after its first try failed.
        let retried = try String(contentsOfFile: scratch + "/out/board/logs/shard-1.log", encoding: .utf8)
        XCTAssertTrue(retried.contains("try 1 failed") && retried.contains("done on try 2"), retried)
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch + "/out/board/logs/merge.log"))
        // Each task rendered the range the script planned once, read from its list: cut on the
        // clips' keyframes, in whole seconds (`frames --keyframes --whole-seconds`).
        let planned = try cli.run(["frames", cli.demo, "--shards", "4", "--keyframes", "--whole-seconds"] + options)
        let ranges = planned.stdout.split(separator: "\n")
        XCTAssertEqual(ranges.count, 4, planned.stdout + planned.stderr)
        for (i, range) in ranges.enumerated() {
            let log = try String(contentsOfFile: scratch + "/out/board/logs/shard-\(i).log", encoding: .utf8)
            XCTAssertTrue(log.contains("shard \(i) of 4: frames \(range) ") && log.contains("(planned in "), log)
        }

        // The clip: every frame, joined from whole-GOP segments.
        XCTAssertEqual(try videoPacketCount(scratch + "/out/board.mp4"), "116")

        // Nothing but the result is left beside it: the work folder is gone.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch + "/out").sorted(), ["board", "board.mp4"])
    }

    /// A shard that fails on both tries cancels the merge job; the script exits non-zero, names
    /// the shard and its log, and OUT gets nothing (the shards' frames are removed too).
    func testAShardThatFailsTwiceFailsTheMergeAndLeavesNoOutput() throws {
        let cluster = try cluster()
        let cli = CommandLineRunner()
        let folder = ScratchFolder()
        let scratch = folder.path
        let result = try renderSlurm(cluster, [cli.demo, "4", scratch + "/out/board"] + options,
                                     environment: ["LIVE_STORIES_FAIL_SHARD": "2"])
        XCTAssertNotEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("shard 2 failed"), result.output)
        XCTAssertFalse(result.output.contains("shard 1 failed"), result.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/out/board"), "no partial output in OUT")

        // The named log says what happened on each try.
        let logPath = try XCTUnwrap(result.output.split(separator: "\n").first { $0.contains("shard 2 failed") }?
            .components(separatedBy: "its log: ").last)
        XCTAssertTrue(logPath.hasSuffix("/logs/shard-2.log"), logPath)
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        XCTAssertTrue(log.contains("try 2 failed") && log.contains("failed twice"), log)
        // Beside OUT only the work folder's logs are kept, no frames.
        let left = try FileManager.default.subpathsOfDirectory(atPath: scratch + "/out")
        XCTAssertFalse(left.contains { $0.hasSuffix(".png") || $0.hasSuffix(".jsonl") }, "\(left)")
    }

    /// `--boards LIST.txt`: one array task per storyboard (paths relative to the list), each a
    /// whole render in OUT/NAME/ whose trace passes `check`.
    func testBoardsListRendersEachStoryboardAsOneArrayTask() throws {
        let cluster = try cluster()
        let cli = CommandLineRunner()
        let folder = ScratchFolder()
        let scratch = folder.path
        let samples = CommandLineTests.packageRoot.path + "/samples"
        let list = scratch + "/boards.txt"
        try "# two storyboards, one relative to this list\n\(samples)/demo.json\n\nsamples/room.json\n".write(toFile: list, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: scratch + "/samples", withDestinationPath: samples)
        let short = options + ["--duration", "2"]
        let result = try renderSlurm(cluster, ["--boards", list, scratch + "/out"] + short)
        XCTAssertEqual(result.status, 0, result.output + "\n" + cluster.logs())
        XCTAssertTrue(result.output.contains("submitted 2 storyboards as array job"), result.output)
        for name in ["demo", "room"] {
            XCTAssertEqual(try frames(in: scratch + "/out/" + name).count, 16, name)
            let check = try cli.run(["check", scratch + "/out/\(name)/lifecycle.jsonl", "--max-audio", "4"])
            XCTAssertEqual(check.status, 0, name + ": " + check.stdout)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch + "/out/logs/board-1.log"))
    }

    /// `--data ROWS`: a batch over the cluster. Five rows, two an array task (three tasks; the
    /// second task's first try fails and is tried again), one row whose photo does not decode: each
    /// row's frames in OUT/<name>/ as a single `render --set` draws them, and one batch.json
    /// merged from the tasks' parts saying which row failed (exit 3, as batch).
    func testDataRowsRenderAsArrayTasksWithOneMergedBatchReport() throws {
        let cluster = try cluster()
        let cli = CommandLineRunner()
        let folder = ScratchFolder()
        let scratch = folder.path
        for name in ["sunset.jpg", "home.jpg"] {
            try FileManager.default.copyItem(atPath: CommandLineTests.packageRoot.path + "/samples/" + name, toPath: scratch + "/" + name)
        }
        try """
            {"parameters": {"photo": {"type": "file", "default": "sunset.jpg"},
                            "lang": {"type": "string", "enum": ["en", "fr", "de"], "default": "en"}},
             "canvas": {"width": 90, "height": 160, "fps": 8},
             "stories": [{"id": "product-{{lang}}", "items": [{"uri": "{{photo}}", "duration": 1}]}]}
            """.write(toFile: scratch + "/board.json", atomically: true, encoding: .utf8)
        // A photo that is there but is no picture: only its render finds out (a missing one
        // is refused before anything is queued, below).
        try "not a picture".write(toFile: scratch + "/broken.jpg", atomically: true, encoding: .utf8)
        try "sku,photo,lang\nA1,sunset.jpg,en\nB2,home.jpg,fr\nC3,broken.jpg,de\nD4,home.jpg,de\nE5,sunset.jpg,fr\n"
            .write(toFile: scratch + "/rows.csv", atomically: true, encoding: .utf8)

        // Bad data is refused before anything is queued.
        try "sku,photo,lang\nA1,sunset.jpg,es\n".write(toFile: scratch + "/bad.csv", atomically: true, encoding: .utf8)
        let bad = try renderSlurm(cluster, ["--data", scratch + "/bad.csv", scratch + "/board.json", scratch + "/bad"])
        XCTAssertEqual(bad.status, 2, bad.output)
        XCTAssertTrue(bad.output.contains("(row 1)"), bad.output)
        XCTAssertFalse(bad.output.contains("submitted"), bad.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/bad"))
        // So is a row whose file is not there: its render would fail (batch --check).
        try "sku,photo,lang\nA1,sunset.jpg,en\nC3,missing.jpg,de\n".write(toFile: scratch + "/gone.csv", atomically: true, encoding: .utf8)
        let gone = try renderSlurm(cluster, ["--data", scratch + "/gone.csv", scratch + "/board.json", scratch + "/gone"])
        XCTAssertEqual(gone.status, 2, gone.output)
        XCTAssertTrue(gone.output.contains("missing.jpg (row 2)"), gone.output)
        XCTAssertFalse(gone.output.contains("submitted"), gone.output)

        let result = try renderSlurm(cluster, ["--data", scratch + "/rows.csv", scratch + "/board.json", scratch + "/out",
                                               "--rows-per-task", "2", "--name-from", "sku", "--mp4", "clip.mp4"],
                                     environment: ["LIVE_STORIES_FAIL_SHARD_ONCE": "1"])
        XCTAssertEqual(result.status, 3, "row C3 failed: " + result.output + "\n" + cluster.logs())
        XCTAssertTrue(result.output.contains("submitted 3 blocks as array job"), result.output)

        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch + "/out/batch.json"))) as? [String: Any])
        let rows = report["rows"] as? [[String: Any]] ?? []
        XCTAssertEqual(rows.map { $0["name"] as? String ?? "" }, ["A1", "B2", "C3", "D4", "E5"])
        XCTAssertEqual(rows.map { $0["status"] as? String ?? "" }, ["done", "done", "failed", "done", "done"])
        XCTAssertTrue((rows[2]["error"] as? String ?? "").contains("story product-de failed"), "\(rows[2])")
        XCTAssertEqual(report["done"] as? Int, 4)
        XCTAssertEqual(report["failed"] as? Int, 1)
        XCTAssertEqual(report["jobs"] as? Int, 5, "the three parts' jobs summed: 2, 2 and 1 (one a core, at most a row each)")
        let retried = try String(contentsOfFile: scratch + "/out/logs/rows-1.log", encoding: .utf8)
        XCTAssertTrue(retried.contains("try 1 failed") && retried.contains("rows 3-4: done"), retried)

        // Row D4 from the cluster is the same variant as render --set on this machine.
        let single = try cli.run(["render", scratch + "/board.json", "--set", "photo=home.jpg", "--set", "lang=de",
                                  "--output", scratch + "/single", "--quiet"])
        XCTAssertEqual(single.status, 0, single.stderr)
        let names = try frames(in: scratch + "/single")
        XCTAssertEqual(names.count, 8)
        XCTAssertEqual(try frames(in: scratch + "/out/D4"), names)
        for name in names {
            XCTAssertEqual(FileManager.default.contents(atPath: scratch + "/single/" + name),
                           FileManager.default.contents(atPath: scratch + "/out/D4/" + name), name)
        }
        for name in ["A1", "B2", "D4", "E5"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: scratch + "/out/\(name)/clip.mp4"), name)
        }
        // Only OUT is left: the work folder beside it is gone.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch).filter { $0.hasPrefix(".render-slurm") }, [])
    }
}
