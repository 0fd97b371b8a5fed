import Foundation
import XCTest

/// `merge` of shard folders: cuts that round down merge into a trace `check` passes, and an
/// incomplete set or numbers no frame has are refused with what is wrong.
final class ShardMergeCommandTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()
    let small = ["--size", "72x128"]

    /// Renders `ranges` ("A..B") of the demo into folders named after them, and returns those.
    func renderShards(_ ranges: [String], options: [String] = []) throws -> [String] {
        try ranges.map { range in
            let output = folder.file("shard-" + range)
            let result = try cli.run(["render", cli.demo, "--frames", range, "--output", output, "--quiet"] + small + options)
            XCTAssertEqual(result.status, 0, "\(range): \(result.stderr)")
            return output
        }
    }

    func summary(_ folder: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: (folder as NSString).appendingPathComponent("summary.json")))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// 1. Split as `frames --shards 3` splits it, a 5 s render at 30 fps is cut at frames 50 and
    /// 100, whose time (3.333… s) is written rounded down; a player plays across it. The merged
    /// trace used to keep the shard's invented `stop` there and fail `check` ("stopped again").
    func testACutWhoseTimeRoundsDownMergesIntoATraceThatPassesCheck() throws {
        let split = try cli.run(["frames", cli.demo, "--shards", "3", "--duration", "5"] + small)
        XCTAssertEqual(split.status, 0, split.stderr)
        let ranges = split.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(ranges, ["0..50", "50..100", "100..150"])
        let shards = try renderShards(ranges, options: ["--duration", "5"])
        let merged = try cli.run(["merge"] + shards + ["--output", folder.file("merged")])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        let check = try cli.run(["check", folder.file("merged/lifecycle.jsonl")])
        XCTAssertEqual(check.status, 0, check.stdout)
        XCTAssertTrue(check.stdout.hasPrefix("ok:"), check.stdout)
    }

    /// 2. Two of the demo's shards (it has 435 frames; each shard's summary says so) are not
    /// the render: the merge refuses them and names the frames missing. With --allow-partial
    /// they merge into one shard of frames 0..30, which says frame_range.
    func testMergeRefusesAnIncompleteSetOfShardsAndNamesWhatIsMissing() throws {
        let shards = try renderShards(["0..15", "15..30"])
        XCTAssertEqual(try summary(shards[0])["timeline_frames"] as? Int, 435, "each shard knows the whole render's frames")
        let refused = try cli.run(["merge"] + shards + ["--output", folder.file("merged")])
        XCTAssertEqual(refused.status, 2, refused.stdout)
        XCTAssertTrue(refused.stderr.contains("frames 30..<435"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--allow-partial"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("merged/lifecycle.jsonl")), "nothing looks whole")

        let partial = try cli.run(["merge", "--allow-partial"] + shards + ["--output", folder.file("part")])
        XCTAssertEqual(partial.status, 0, partial.stderr)
        XCTAssertTrue(partial.stdout.contains("frame_range 0..30"), partial.stdout)
        let merged = try summary(folder.file("part"))
        XCTAssertEqual(merged["frame_range"] as? [Int], [0, 30])
        XCTAssertEqual(merged["timeline_frames"] as? Int, 435)
        let check = try cli.run(["check", "--shard", folder.file("part/lifecycle.jsonl")])
        XCTAssertEqual(check.status, 0, check.stdout)

        // A gap inside is refused even so: one frame_range could not say what the folder holds.
        let gap = try renderShards(["45..60"])
        let gapped = try cli.run(["merge", "--allow-partial", shards[0], gap[0], "--output", folder.file("gap")])
        XCTAssertEqual(gapped.status, 2, gapped.stdout)
        XCTAssertTrue(gapped.stderr.contains("frames 15..<45"), gapped.stderr)
    }

    /// 3. A shard of an open-ended render stops at its range's end, not after 3600 s of
    /// timeline: its summary, and a merged one, had the false notice.
    func testAShardsSummaryHasNoNoticeOfTheOpenEndedLimit() throws {
        let shards = try renderShards(["0..20", "20..40"])
        for shard in shards {
            let notices = try XCTUnwrap(summary(shard)["notices"] as? [String])
            XCTAssertFalse(notices.contains { $0.contains("stopped after") }, "\(shard): \(notices)")
        }
        let merged = try cli.run(["merge", "--allow-partial"] + shards + ["--output", folder.file("merged")])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        let notices = try XCTUnwrap(summary(folder.file("merged"))["notices"] as? [String])
        XCTAssertFalse(notices.contains { $0.contains("stopped after") }, "\(notices)")
    }

    /// A shard folder whose summary or trace holds numbers no frame could have: `merge` refuses
    /// it with an error, where `Int(1e20)` used to trap.
    func testMergeRefusesNumbersNoFrameHas() throws {
        for (summary, trace) in [(#"{"frame_range": [0, 10], "timeline_frames": 1e20, "timeline_fps": 30}"#, ""),
                                 (#"{"frame_range": [0, 1e300], "timeline_frames": 10, "timeline_fps": 30}"#, ""),
                                 (#"{"frame_range": [0, 10], "timeline_frames": 10, "timeline_fps": 30}"#,
                                  #"{"t": 1e300, "wall": 0, "event": "play", "story": "a", "item": 0, "player": 1}"#)] {
            let shard = folder.file("shard-\(summary.count)-\(trace.count)")
            try FileManager.default.createDirectory(atPath: shard, withIntermediateDirectories: true)
            try summary.write(toFile: shard + "/summary.json", atomically: true, encoding: .utf8)
            try trace.write(toFile: shard + "/lifecycle.jsonl", atomically: true, encoding: .utf8)
            let merged = try cli.run(["merge", shard, "--output", folder.file("merged-\(summary.count)-\(trace.count)")])
            if trace.isEmpty {
                XCTAssertTrue([1, 2].contains(merged.status), "\(summary): exit \(merged.status) \(merged.stderr)")
                XCTAssertFalse(merged.stderr.isEmpty, "an error says why")
            } else {
                // A time far past the render is only a late event: merged or refused, never a trap
                // (which ends the process with the signal's number, 4 or 5).
                XCTAssertTrue([0, 1, 2].contains(merged.status), "\(trace): exit \(merged.status) \(merged.stderr)")
            }
        }
    }
}
