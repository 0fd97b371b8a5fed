import Foundation
import XCTest

/// `render-stories batch`: one storyboard, a variant for each row of data, each rendered into a
/// folder of its own, with batch.json saying how each went.
final class BatchCommandTests: XCTestCase {
    let cli = CommandLineRunner()

    /// A folder with two photos and a storyboard whose photo, length and language are parameters.
    private func boardFolder() throws -> ScratchFolder {
        let folder = ScratchFolder()
        for name in ["sunset.jpg", "home.jpg"] {
            try FileManager.default.copyItem(atPath: CommandLineTests.packageRoot.appendingPathComponent("samples/\(name)").path,
                                             toPath: folder.file(name))
        }
        try write("""
            {"parameters": {"photo": {"type": "file", "default": "sunset.jpg"},
                            "length": {"type": "number", "default": 1, "min": 0.5, "max": 5},
                            "lang": {"type": "string", "enum": ["en", "fr"], "default": "en"}},
             "canvas": {"width": 90, "height": 160, "fps": 10},
             "stories": [{"id": "product-{{lang}}", "items": [{"uri": "{{photo}}", "duration": "{{length}}"}]}]}
            """, to: folder.file("board.json"))
        return folder
    }

    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    private func report(_ path: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    private func rows(_ report: [String: Any]) -> [[String: Any]] { report["rows"] as? [[String: Any]] ?? [] }

    func testEachRowIsAVariantInAFolderOfItsOwnAndAFailedRowLetsTheOthersGoOn() throws {
        let folder = try boardFolder()
        try write("sku,photo,length,lang\nA-1,sunset.jpg,1,en\nB 2,home.jpg,1.5,fr\nC3,missing.jpg,1,en\n", to: folder.file("rows.csv"))
        let batch = try cli.run(["batch", folder.file("board.json"), "--data", folder.file("rows.csv"), "--output", folder.file("out"),
                                 "--name-from", "sku", "--jobs", "2", "--mp4", "clip.mp4"])
        XCTAssertEqual(batch.status, 3, "a row failed: \(batch.stderr)")
        let first = try report(folder.file("out/batch.json"))
        let byName = Dictionary(uniqueKeysWithValues: rows(first).map { ($0["name"] as? String ?? "", $0) })
        XCTAssertEqual(byName.keys.sorted(), ["A-1", "B_2", "C3"], "folders named by --name-from, made safe")
        XCTAssertEqual(byName["A-1"]?["status"] as? String, "done")
        XCTAssertEqual(byName["B_2"]?["status"] as? String, "done")
        XCTAssertEqual(byName["C3"]?["status"] as? String, "failed", "its media is missing: an error card, and the row fails")
        XCTAssertTrue((byName["C3"]?["error"] as? String ?? "").contains("missing.jpg"), "\(byName["C3"] ?? [:])")
        XCTAssertTrue(byName["A-1"]?["error"] is NSNull, "every row has an error key, null when none")
        XCTAssertNotNil(byName["A-1"]?["time"] as? Double)
        XCTAssertEqual(first["done"] as? Int, 2)
        XCTAssertEqual(first["failed"] as? Int, 1)
        for name in ["A-1", "B_2"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder.file("out/\(name)/clip.mp4")), "--mp4 clip.mp4 in each row's folder")
            XCTAssertTrue((byName[name]?["outputs"] as? [String] ?? []).contains { $0.hasSuffix("\(name)/clip.mp4") })
        }
        XCTAssertTrue(batch.stderr.contains("C3") && batch.stderr.contains("failed"), "the failed row is named: \(batch.stderr)")

        // The same variant from batch and from render --set: the same frames, byte for byte.
        let single = try cli.run(["render", folder.file("board.json"), "--set", "photo=home.jpg", "--set", "length=1.5", "--set", "lang=fr",
                                  "--output", folder.file("single"), "--quiet"])
        XCTAssertEqual(single.status, 0, single.stderr)
        let frames = try FileManager.default.contentsOfDirectory(atPath: folder.file("single")).filter { $0.hasPrefix("frame-") }
        XCTAssertEqual(frames.count, 15)
        for frame in frames {
            XCTAssertEqual(FileManager.default.contents(atPath: folder.file("single/" + frame)),
                           FileManager.default.contents(atPath: folder.file("out/B_2/" + frame)), frame)
        }

        // Run again: the finished rows are passed over, the failed one tried again; --force
        // renders every row.
        let again = try cli.run(["batch", folder.file("board.json"), "--data", folder.file("rows.csv"), "--output", folder.file("out"),
                                 "--name-from", "sku", "--mp4", "clip.mp4", "--quiet"])
        XCTAssertEqual(again.status, 3)
        let statuses = Dictionary(uniqueKeysWithValues: rows(try self.report(folder.file("out/batch.json"))).map { ($0["name"] as? String ?? "", $0["status"] as? String ?? "") })
        XCTAssertEqual(statuses, ["A-1": "skipped", "B_2": "skipped", "C3": "failed"])
        // --force renders the finished rows again.
        let forced = try cli.run(["batch", folder.file("board.json"), "--data", folder.file("rows.csv"), "--output", folder.file("out"),
                                  "--name-from", "sku", "--mp4", "clip.mp4", "--force", "--quiet"])
        XCTAssertEqual(forced.status, 3)
        XCTAssertEqual(rows(try report(folder.file("out/batch.json"))).filter { $0["status"] as? String == "done" }.count, 2)
    }

    /// A batch in parts, as machines of a cluster run it: `--check` counts the rows, each part
    /// renders `--rows A-B` into the same folder with a report of its own, and `--merge` joins
    /// them into batch.json, a row no part reported being not-run (exit 3 until every row is in).
    func testPartsOfABatchMergeIntoOneReport() throws {
        let folder = try boardFolder()
        try write("sku,photo,lang\nA,sunset.jpg,en\nB,home.jpg,fr\nC,missing.jpg,en\n", to: folder.file("rows.csv"))
        let base = ["batch", folder.file("board.json"), "--data", folder.file("rows.csv"), "--output", folder.file("out"), "--name-from", "sku"]
        // Row 3's photo is missing: --check names it (its render would fail), and renders nothing.
        let count = try cli.run(base + ["--check"])
        XCTAssertEqual(count.status, 2, count.stderr)
        XCTAssertTrue(count.stderr.contains("no such file \(folder.file("missing.jpg")) (row 3)"), count.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("out")), "--check renders nothing")
        let firstTwo = try cli.run(base + ["--check", "--rows", "1-2"])
        XCTAssertEqual(firstTwo.status, 0, firstTwo.stderr)
        XCTAssertEqual(firstTwo.stdout, "3\n", "the rows of the data, the part's checked")

        let first = try cli.run(base + ["--rows", "1-2", "--quiet"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("out/batch.json")), "a part writes its own report")
        XCTAssertEqual(rows(try report(folder.file("out/batch-rows-1-2.json"))).map { $0["name"] as? String ?? "" }, ["A", "B"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("out/C")), "row 3 is not this part's")

        let early = try cli.run(base + ["--merge"])
        XCTAssertEqual(early.status, 3, "row 3 has not run: \(early.stdout)")
        XCTAssertEqual(rows(try report(folder.file("out/batch.json"))).map { $0["status"] as? String ?? "" }, ["done", "done", "not-run"])

        let second = try cli.run(base + ["--rows", "3"])
        XCTAssertEqual(second.status, 3, "its photo is missing")
        let merged = try cli.run(base + ["--merge"])
        XCTAssertEqual(merged.status, 3, merged.stdout)
        let whole = try report(folder.file("out/batch.json"))
        XCTAssertEqual(rows(whole).map { $0["status"] as? String ?? "" }, ["done", "done", "failed"])
        XCTAssertEqual(whole["done"] as? Int, 2)
        XCTAssertEqual(whole["failed"] as? Int, 1)

        // A part left from other data (row 2 with other values) is not taken, though newer.
        try write(#"{"storyboard": "x", "data": "old.csv", "rows": [{"row": 2, "name": "B", "status": "failed", "outputs": [], "time": 1, "error": "old", "values": {"lang": "en", "photo": "sunset.jpg"}}], "done": 0, "failed": 1, "skipped": 0, "interrupted": false, "time": 1, "jobs": 1}"#,
                  to: folder.file("out/batch-rows-2-2.json"))
        _ = try cli.run(base + ["--merge"])
        XCTAssertEqual(rows(try report(folder.file("out/batch.json"))).map { $0["status"] as? String ?? "" }, ["done", "done", "failed"])

        let outside = try cli.run(base + ["--rows", "2-4"])
        XCTAssertEqual(outside.status, 2)
        XCTAssertTrue(outside.stderr.contains("--rows 2-4: the data has 3 rows"), outside.stderr)
        let both = try cli.run(base + ["--rows", "1", "--merge"])
        XCTAssertEqual(both.status, 2, "a usage error: \(both.stderr)")
    }

    /// Bad data stops the batch before any frame, every mistake named with its row (exit 2).
    func testBadDataIsReportedWithItsRowsBeforeAnyFrame() throws {
        let folder = try boardFolder()
        try write(#"[{"photo": "home.jpg", "length": 2}, {"length": "long"}, {"photo": "../../etc/passwd"}]"#, to: folder.file("rows.json"))
        let typed = try cli.run(["batch", folder.file("board.json"), "--data", folder.file("rows.json"), "--output", folder.file("out")])
        XCTAssertEqual(typed.status, 2)
        XCTAssertTrue(typed.stderr.contains(#"parameters.length: length=long (row 2): "long" is not a number"#), typed.stderr)
        XCTAssertTrue(typed.stderr.contains("(row 3)") && typed.stderr.contains("outside the storyboard's folder"), typed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("out/0001")), "no row rendered")

        try write("photo,length\nhome.jpg\n", to: folder.file("short.csv"))
        let short = try cli.run(["batch", folder.file("board.json"), "--data", folder.file("short.csv"), "--output", folder.file("out")])
        XCTAssertEqual(short.status, 2)
        XCTAssertTrue(short.stderr.contains("short.csv, row 1: 1 values for 2 columns"), short.stderr)

        // A parameter with no default needs a column.
        try write(#"{"parameters": {"name": {"type": "string"}}, "stories": [{"id": "{{name}}", "items": [{"uri": "home.jpg", "duration": 1}]}]}"#,
                  to: folder.file("needs.json"))
        try write("other\nx\n", to: folder.file("other.csv"))
        let missing = try cli.run(["batch", folder.file("needs.json"), "--data", folder.file("other.csv"), "--output", folder.file("out")])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("parameters.name: no value (row 1)"), missing.stderr)

        // JSON lines, numbered folders.
        try write("{\"photo\": \"home.jpg\"}\n\n{\"length\": 2.5, \"lang\": \"fr\"}\n", to: folder.file("rows.jsonl"))
        let lines = try cli.run(["batch", folder.file("board.json"), "--data", folder.file("rows.jsonl"), "--output", folder.file("lines"), "--quiet"])
        XCTAssertEqual(lines.status, 0, lines.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.file("lines")).sorted(), ["0001", "0002", "batch.json"])
    }

    /// Ctrl-C stops the renders at their next frame: batch.json says what was done, and no
    /// temporary file is left.
    func testCtrlCLeavesTheRowsDoneAndNoTemporaryFiles() throws {
        let folder = try boardFolder()
        try write("length\n" + String(repeating: "5\n", count: 6), to: folder.file("rows.csv"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPrograms.renderStories)
        process.arguments = ["batch", folder.file("board.json"), "--data", folder.file("rows.csv"), "--output", folder.file("out"),
                             "--jobs", "1", "--mp4", "clip.mp4", "--quiet"]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !FileManager.default.fileExists(atPath: folder.file("out/0002/frame-000003.png")) { usleep(20_000) }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        let stopped = try report(folder.file("out/batch.json"))
        XCTAssertEqual(stopped["interrupted"] as? Bool, true)
        let statuses = rows(stopped).map { $0["status"] as? String ?? "" }
        XCTAssertEqual(statuses.first, "done")
        XCTAssertTrue(statuses.contains("interrupted"), "\(statuses)")
        XCTAssertTrue(statuses.contains("not-run"), "\(statuses)")
        let leftovers = FileManager.default.enumerator(atPath: folder.file("out"))?.compactMap { $0 as? String }.filter { $0.hasSuffix(".tmp") } ?? []
        XCTAssertEqual(leftovers, [])
    }
}
