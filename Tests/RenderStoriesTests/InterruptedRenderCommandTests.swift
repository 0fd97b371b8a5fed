import Foundation
import XCTest

/// A render stopped by a signal (Ctrl-C, SIGTERM, once or twice, during a render or a still):
/// it stops cleanly, writes what it finished and its report, leaves no temporary file, and says
/// what was cut short.
final class InterruptedRenderCommandTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()
    let samples = CommandLineTests.packageRoot.appendingPathComponent("samples").path

    /// Starts a render of the demo and waits until it has written `frames` frames.
    func startRender(_ arguments: [String], out: String, frames: Int = 20, stderr: Pipe? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPrograms.renderStories)
        process.arguments = ["render", cli.demo, "--output", out] + (stderr == nil ? ["--quiet"] : []) + arguments
        process.standardError = stderr ?? FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: out + String(format: "/frame-%06d.png", frames))
                && Date() < deadline && process.isRunning {
            usleep(20_000)
        }
        return process
    }

    /// Starts a render of the demo into `name` with an MP4 slow to finish (x264's veryslow),
    /// sends `signal` twice, 200 ms apart, once 10 frames are written, and returns the output
    /// folder, the exit status and what the render said.
    func signalTwice(_ signal: Int32, name: String) throws -> (out: String, status: Int32, said: String) {
        let out = folder.file(name)
        let stderr = Pipe()
        let process = try startRender(["--size", "360x640", "--mp4", folder.file(name + ".mp4"), "--preset", "veryslow",
                                       "--progress", "none"], out: out, frames: 10, stderr: stderr)
        kill(process.processIdentifier, signal)
        usleep(200_000)
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        let said = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (out, process.terminationStatus, said)
    }

    /// Ctrl-C with --report still writes report.html, from the summary that says "interrupted".
    func testAnInterruptedRenderWritesItsReport() throws {
        let out = folder.file("int")
        let process = try startRender(["--size", "180x320", "--report"], out: out)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        let page = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        XCTAssertTrue(page.contains(#""interrupted": true"#), "the page's summary says it was interrupted")
    }

    /// A second SIGINT ends the render at once, and still no temporary file is left: not the
    /// MP4's (slow to finish with veryslow), not a frame's. Each signal says what it does: the
    /// first that the clip is being finished and how to stop at once, the second what it left out.
    func testASecondSignalLeavesNoTemporaryFile() throws {
        let (out, status, said) = try signalTwice(SIGINT, name: "int2")
        XCTAssertEqual(status, 130)
        XCTAssertTrue(said.contains("stopping at the next frame, then finishing int2.mp4 from the frames drawn; "
                                    + "press Ctrl-C again to stop at once without them"), said)
        XCTAssertTrue(said.contains("stopped at once: int2.mp4, lifecycle.jsonl and summary.json not written"), said)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }
            + FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".tmp") }
        XCTAssertEqual(left, [], "no temporary file after two signals")
        // The second signal came while the MP4 was still being finished: had the render ended
        // within the 200 ms, this would not test the second signal at all.
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/summary.json"), "the second signal cut the end short")
    }

    /// A job runner stops a render with SIGTERM, not a key: the first signal's message tells it
    /// to send SIGTERM again, not to press Ctrl-C, and the second ends the render at once (143).
    func testASecondSIGTERMIsNamedAsSent() throws {
        let (_, status, said) = try signalTwice(SIGTERM, name: "term2")
        XCTAssertEqual(status, 128 + SIGTERM)
        XCTAssertTrue(said.contains("from the frames drawn; send SIGTERM again to stop at once without them"), said)
        XCTAssertFalse(said.contains("Ctrl-C"), said)
        XCTAssertTrue(said.contains("stopped at once: term2.mp4, lifecycle.jsonl and summary.json not written"), said)
    }

    /// A clip finished between the two signals is on disk, whole: the second signal's message
    /// says so, and names as not written only the clips that are not. An audit's MP4 was whole
    /// while the message said it was not written.
    func testASecondSignalNamesOnlyTheClipsNotFinished() throws {
        let out = folder.file("int3")
        let clip = folder.file("int3.mp4"), webm = folder.file("int3.webm"), gif = folder.file("int3.gif")
        let stderr = Pipe()
        let process = try startRender(["--size", "360x640", "--mp4", clip, "--webm", webm, "--gif", gif, "--progress", "none"],
                                      out: out, frames: 60, stderr: stderr)
        kill(process.processIdentifier, SIGINT)
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: clip) && process.isRunning && Date() < deadline { usleep(2_000) }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        let said = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 130, said)
        XCTAssertTrue(FileManager.default.fileExists(atPath: clip), "the MP4 was finished before the second signal")
        let second = try XCTUnwrap(said.split(separator: "\n").first { $0.hasPrefix("stopped at once: ") }, said)
        XCTAssertTrue(second.hasSuffix("; int3.mp4 finished before, from the frames drawn"), String(second))
        XCTAssertEqual(second.components(separatedBy: "int3.mp4").count, 2, "the MP4 is named once: \(second)")
        for (path, name) in [(webm, "int3.webm"), (gif, "int3.gif")] {
            XCTAssertEqual(second.contains(name), !FileManager.default.fileExists(atPath: path),
                           "\(name) is named as not written exactly when it is not on disk: \(second)")
        }
    }

    /// SIGINT or SIGTERM mid-render: it stops cleanly, exits 130 or 143, leaves no temporary
    /// file, keeps a whole MP4 of what was drawn, and summary.json says it was interrupted.
    func testASignalStopsTheRenderCleanly() throws {
        for (signal, status) in [(SIGTERM, Int32(143)), (SIGINT, Int32(130))] {
            let out = folder.path + "/signal-\(signal)"
            let clip = folder.path + "/signal-\(signal).mp4"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: TestPrograms.renderStories)
            process.arguments = ["render", cli.demo, "--size", "180x320", "--output", out, "--mp4", clip, "--quiet"]
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            while !FileManager.default.fileExists(atPath: out + "/frame-000030.png") && Date() < deadline && process.isRunning {
                usleep(20_000)
            }
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, status)
            let names = try FileManager.default.contentsOfDirectory(atPath: out)
            XCTAssertEqual(names.filter { $0.contains(".tmp") || $0.hasPrefix(".") }, [], "no temporary file in the output")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp") }, [])
            let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/summary.json"))) as! [String: Any]
            XCTAssertEqual(summary["interrupted"] as? Bool, true)
            let frames = try XCTUnwrap(summary["frames"] as? Int)
            XCTAssertEqual(names.filter { $0.hasPrefix("frame-") }.count, frames)
            XCTAssertLessThan(frames, 435, "it stopped early")
            XCTAssertEqual(try cli.run(["check", out + "/lifecycle.jsonl"]).status, 0)
            XCTAssertTrue(FileManager.default.fileExists(atPath: clip), "a whole clip of what was drawn")
        }
    }

    /// A signal after the last frame, while a GIF's palette pass and a WebP are finished: found
    /// by an audit, the render went on to write them whole, then exited 130 and said summary.json
    /// held "interrupted": true, which it did not. Nothing was cut short, and it says so now.
    func testASignalAfterTheLastFrameSaysNothingWasCutShort() throws {
        let out = folder.path + "/late-signal"
        let gif = folder.path + "/late-signal.gif", webp = folder.path + "/late-signal.webp"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPrograms.renderStories)
        process.arguments = ["render", cli.demo, "--size", "180x320", "--output", out, "--gif", gif, "--webp", webp, "--quiet"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: out + "/frame-000434.png") && Date() < deadline && process.isRunning {
            usleep(5_000)
        }
        XCTAssertTrue(process.isRunning, "the clips are still being finished after the last frame")
        kill(process.processIdentifier, SIGINT)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, said)
        XCTAssertTrue(said.contains("came after the last frame"), said)
        XCTAssertFalse(said.contains("interrupted:"), said)
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/summary.json"))) as! [String: Any]
        XCTAssertNotEqual(summary["interrupted"] as? Bool, true)
        XCTAssertEqual(summary["frames"] as? Int, 435)
        for clip in [gif, webp] { XCTAssertTrue(FileManager.default.fileExists(atPath: clip), "\(clip) is whole") }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp") }, [])
    }

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
