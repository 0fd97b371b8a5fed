import Foundation
import XCTest

/// What a review of issue 28's fixes found, each shown failing first.
final class ReviewFixesTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

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

extension ReviewFixesTests {
    /// Ctrl-C while `still` writes its PNG: the command ends (130) and leaves no temporary file
    /// beside the output (the default action killed it with the `.s.png.pid-n.tmp` in place).
    func testCtrlCDuringAStillLeavesNoTemporaryFile() throws {
        let stills = folder.file("stills")
        func temporaries() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: stills)) ?? []).filter { $0.hasSuffix(".tmp") }
        }
        // An uncompressed 4096x7280 PNG (89 MB) is written for tens of milliseconds: the window
        // to signal in. A run that misses it (the file renamed before the next look) is tried again.
        for attempt in 1...4 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: TestPrograms.renderStories)
            process.arguments = ["still", cli.demo, "--page", "0", "--time", "1", "--size", "4096x7280",
                                 "--png-level", "0", "--output", stills + "/s\(attempt).png"]
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            while temporaries().isEmpty && process.isRunning && Date() < deadline { usleep(500) }
            guard !temporaries().isEmpty else {
                process.waitUntilExit()
                continue
            }
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 130)
            XCTAssertEqual(temporaries(), [], "no temporary file after Ctrl-C")
            return
        }
        XCTFail("the still's PNG was never caught being written in four tries")
    }
}
