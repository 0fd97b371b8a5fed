import Foundation
import StoryEncode
import StoryMedia
import StoryModel
import StoryPlayback
import StoryRender
import StoryTrace
import Synchronization
import StoryPlayerTestSupport
import XCTest

/// `BatchRunner`: a batch's rows, each a render in a process of its own, counted by how the
/// process ended, passed over when a run before finished them, and `batch.json`'s strings.
/// The renders here are a shell script that exits as the row's `code` value says, so each exit
/// status is met without rendering.
final class BatchRunnerTests: XCTestCase {
    /// A storyboard with a `code` parameter, rows of codes, and a "render" that writes the
    /// row's summary.json and exits with its code (its last line on stderr saying so).
    private func batch(codes: [Int], in folder: ScratchFolder) throws -> (BatchPlan, String) {
        try Data(#"{"parameters": {"code": {"type": "number"}}, "stories": [{"id": "s{{code}}", "items": [{"uri": "a.jpg", "duration": 1}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: folder.file("board.json")))
        let data = try BatchData(csv: "code\n" + codes.map(String.init).joined(separator: "\n") + "\n")
        let plan = try BatchPlan(board: folder.file("board.json"), data: data, output: folder.file("out"), nameFrom: nil)
        let script = folder.file("render.sh")
        try Data("""
            #!/bin/sh
            while [ $# -gt 0 ]; do
              case $1 in --output) out=$2; shift ;; code=*) code=${1#code=} ;; esac
              shift
            done
            echo '{}' > "$out/summary.json"
            echo "said $code" >&2
            exit $code
            """.utf8).write(to: URL(fileURLWithPath: script))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        return (plan, script)
    }

    func testEachRowsStatusIsHowItsRenderEnded() throws {
        let folder = ScratchFolder()
        let (plan, script) = try batch(codes: [0, 3, 2, 130], in: folder)
        let runner = BatchRunner(variants: plan.variants, configuration: .init(
            storyboard: folder.file("board.json"), data: "codes.csv", output: folder.file("out"), executable: script, jobs: 2))
        let report = try runner.run()
        XCTAssertEqual(report.rows.map(\.status), [.done, .done, .failed, .interrupted])
        XCTAssertEqual(report.rows[2].error, "said 2")
        XCTAssertEqual([report.done, report.failed, report.skipped, report.jobs], [2, 1, 0, 2])
        XCTAssertNil(runner.interruption)
        // The done rows are complete: a second run passes over them, and renders the others again.
        let again = try BatchRunner(variants: plan.variants, configuration: .init(
            storyboard: folder.file("board.json"), data: "codes.csv", output: folder.file("out"), executable: script, jobs: 2)).run()
        XCTAssertEqual(again.rows.map(\.status), [.skipped, .skipped, .failed, .interrupted])
    }

    func testARowsRenderGetsItsValuesAndItsOwnFilesAndThreads() throws {
        let folder = ScratchFolder()
        let (plan, script) = try batch(codes: [0], in: folder)
        let report = try BatchRunner(variants: plan.variants, configuration: .init(
            storyboard: "board.json", data: "codes.csv", output: folder.file("out"), executable: script, options: ["--mp4=clip.mp4"]),
            cores: 4).run()
        let recordData = try Data(contentsOf: URL(fileURLWithPath: folder.file("out/0001/batch-row.json")))
        let record = try JSONDecoder().decode(BatchRowRecord.self, from: recordData)
        let row = folder.file("out/0001")
        XCTAssertEqual(record.arguments, ["render", "board.json", "--output", row, "--quiet", "--mp4", row + "/clip.mp4",
                                          "--threads", "4", "--set", "code=0"])
        // The clip was never written by the script: only the files there are listed.
        XCTAssertEqual(report.rows[0].outputs, [row + "/summary.json"])
    }

    /// A signal stops the render running (it exits 130, as render does on SIGINT) and starts no
    /// other row.
    func testAnInterruptStopsTheRowRunningAndStartsNoOther() throws {
        let report = try interrupted(by: """
            #!/bin/sh
            trap 'kill $!; exit 130' INT
            sleep 60 &
            wait
            """)
        XCTAssertEqual(report.rows.map(\.status), [.interrupted, .notRun])
        XCTAssertTrue(report.interrupted)
    }

    /// A render the signal reaches before it handles signals (just started) ends by it: it was
    /// stopped, not failed, and is rendered again next time like any row interrupted.
    func testARenderEndedByTheSignalItselfIsInterruptedNotFailed() throws {
        let report = try interrupted(by: "#!/bin/sh\nexec sleep 60\n")
        XCTAssertEqual(report.rows.map(\.status), [.interrupted, .notRun])
    }

    /// Two rows, one at a time, whose "render" is `script`; interrupted (SIGTERM to the batch)
    /// once the first has started.
    private func interrupted(by script: String) throws -> BatchReport {
        let folder = ScratchFolder()
        let (plan, _) = try batch(codes: [0, 0], in: folder)
        let path = folder.file("slow.sh")
        try Data(script.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        let runner = BatchRunner(variants: plan.variants, configuration: .init(
            storyboard: folder.file("board.json"), data: "codes.csv", output: folder.file("out"), executable: path, jobs: 1))
        let finished = DispatchSemaphore(value: 0)
        let report = Mutex<BatchReport?>(nil)
        Thread.detachNewThread {
            report.withLock { $0 = try? runner.run() }
            finished.signal()
        }
        // The first row's log is made just before its render starts (a signal before its shell
        // sets its trap ends it by the signal: interrupted all the same).
        while !FileManager.default.fileExists(atPath: folder.file("out/0001/batch-row.log")) { usleep(10_000) }
        runner.interrupt(signal: SIGTERM)
        XCTAssertEqual(runner.interruption, SIGTERM)
        finished.wait()
        return try XCTUnwrap(report.withLock { $0 })
    }

    /// batch.json's strings are read by scripts and by `--merge`: they do not change.
    func testBatchJSONWritesTheStatusesAsBefore() throws {
        XCTAssertEqual(BatchRowStatus.allCases.map(\.rawValue), ["done", "failed", "skipped", "interrupted", "not-run"])
        let row = BatchReport.RowResult(row: 1, name: "0001", status: .notRun, outputs: [], time: 0, error: nil, values: [:])
        let text = String(decoding: try JSONEncoder().encode(row), as: UTF8.self)
        XCTAssertTrue(text.contains(#""status":"not-run""#), text)
        XCTAssertEqual(try JSONDecoder().decode(BatchReport.RowResult.self, from: Data(text.utf8)), row)
    }

    func testOptionsThatAreTheBatchsOrLeaveTheRowsFolderAreRefused() {
        XCTAssertEqual(BatchRunner.problem(withRowOptions: ["--mp4", "a.mp4", "--quiet"]),
                       "--quiet is the batch's to set: each row renders into DIR/<row>/, quietly")
        XCTAssertEqual(BatchRunner.problem(withRowOptions: ["--gif=../a.gif"]),
                       "--gif ../a.gif: give a file name, which each row writes into its own folder")
        XCTAssertEqual(BatchRunner.problem(withRowOptions: ["--timeline", "/tmp/t.png"]),
                       "--timeline /tmp/t.png: give a file name, which each row writes into its own folder")
        XCTAssertNil(BatchRunner.problem(withRowOptions: ["--mp4", "clip.mp4", "--set", "lang=fr"]))
    }
}
