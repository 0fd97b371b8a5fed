import Foundation
import XCTest

/// Issue 28, round three, the outputs: their folders and errors, signals, a closed pipe, the
/// odd size, one missing file, the report's layout (the issue's numbered items that these cover).
final class OutputRoundThreeTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()
    let samples = CommandLineTests.packageRoot.appendingPathComponent("samples").path

    /// One story of the sample beach clip, small and short.
    func smallBoard(duration: Double = 1) throws -> String {
        let board = folder.file("small.json")
        try Data(#"{"duration": \#(duration), "canvas": {"width": 72, "height": 128, "fps": 10}, "stories": [{"id": "b", "items": [{"uri": "\#(samples)/beach.mp4"}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: board))
        return board
    }

    // MARK: - 8. Output paths

    /// Every output makes its folders, as --output does: the contact sheet, the timeline and the
    /// MP4 into folders that do not exist yet.
    func testEveryOutputMakesItsFolders() throws {
        let board = try smallBoard()
        let sheet = folder.file("sheets/a/s.png"), timeline = folder.file("timelines/b/t.png"), clip = folder.file("clips/c/c.mp4")
        let result = try cli.run(["render", board, "--output", folder.file("out/deep"), "--contact-sheet", sheet,
                                  "--sheet-frames", "4", "--timeline", timeline, "--mp4", clip, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for path in [sheet, timeline, clip, folder.file("out/deep/summary.json")] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), path)
        }
    }

    /// A file where a folder should be is named, with the path given and why in plain words, for
    /// the output folder and for every output file; no Foundation error number.
    func testAFileInTheWayIsSaidInPlainWords() throws {
        let board = try smallBoard()
        let blocker = folder.file("blocker")
        FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8))
        for flags in [["--output", blocker + "/out"],
                      ["--output", folder.file("o1"), "--contact-sheet", blocker + "/s.png"],
                      ["--output", folder.file("o2"), "--timeline", blocker + "/t/t.png"],
                      ["--output", folder.file("o3"), "--mp4", blocker + "/c.mp4"]] {
            let result = try cli.run(["render", board] + flags + ["--quiet"])
            XCTAssertEqual(result.status, 1, "\(flags)")
            XCTAssertTrue(result.stderr.contains(flags.last!), "names the path given: \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("\(blocker) is a file, not a folder"), result.stderr)
            XCTAssertFalse(result.stderr.contains("NSCocoaErrorDomain"), result.stderr)
            XCTAssertFalse(result.stderr.contains(".tmp"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("o1")), "refused before the output folder is made")
    }

    /// /proc takes no new folder: said so, not "The file doesn't exist".
    func testAFolderInProcIsRefusedInPlainWords() throws {
        let board = try smallBoard()
        let target = "/proc/live-stories-\(getpid())"
        let result = try cli.run(["render", board, "--output", target, "--quiet"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains(target), result.stderr)
        XCTAssertTrue(result.stderr.contains("/proc does not take new files or folders"), result.stderr)
        XCTAssertFalse(result.stderr.contains("doesn’t exist") || result.stderr.contains("doesn't exist"), result.stderr)
        let sheet = try cli.run(["render", board, "--output", folder.file("p"), "--contact-sheet", "/proc/s.png", "--quiet"])
        XCTAssertEqual(sheet.status, 1)
        XCTAssertTrue(sheet.stderr.contains("/proc/s.png") && sheet.stderr.contains("does not take new files"), sheet.stderr)
    }

    /// `still --output nodir/s.png` makes nodir, as render does; a still that cannot be written
    /// names the path given, never the temporary file.
    func testAStillMakesItsFolderAndNamesThePathGiven() throws {
        let board = try smallBoard()
        let made = try cli.run(["still", board, "--page", "0", "--output", "nodir/s.png"], in: folder.path)
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.file("nodir/s.png")))
        FileManager.default.createFile(atPath: folder.file("blocker"), contents: Data())
        let refused = try cli.run(["still", board, "--page", "0", "--output", "blocker/s.png"], in: folder.path)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("blocker/s.png") && refused.stderr.contains("blocker is a file, not a folder"),
                      refused.stderr)
        XCTAssertFalse(refused.stderr.contains(".tmp"), refused.stderr)
        // A folder where the picture should go: named, not its temporary file.
        try FileManager.default.createDirectory(atPath: folder.file("taken.png"), withIntermediateDirectories: true)
        let taken = try cli.run(["still", board, "--page", "0", "--output", "taken.png"], in: folder.path)
        XCTAssertEqual(taken.status, 1)
        XCTAssertTrue(taken.stderr.contains("cannot write taken.png: taken.png is a folder"), taken.stderr)
        XCTAssertFalse(taken.stderr.contains(".tmp"), taken.stderr)
    }

    // MARK: - 9. Signals

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

    // MARK: - 10. A closed pipe

    /// `--progress json | head -2`: the reader goes, progress stops, the render finishes with its
    /// trace and summary, and exits 0 (it died of SIGPIPE, 141).
    func testAClosedProgressPipeIsIgnored() throws {
        let board = try smallBoard(duration: 2)
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

    // MARK: - 11. An odd size with --mp4

    /// Refused before anything is made: no output folder, no clip folder; a usage error.
    func testAnOddSizeWithAnMP4CreatesNothing() throws {
        let board = try smallBoard()
        let out = folder.file("odd")
        let result = try cli.run(["render", board, "--size", "73x128", "--mp4", folder.file("clips/c.mp4"), "--output", out])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("even width and height"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "no output folder")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("clips")), "no clip folder")
    }

    // MARK: - 15. One missing file, once

    /// A missing file of a story further on is named once, with its JSON path: not again as a
    /// poster or metadata not loaded, nor as the story's failure.
    func testAMissingFileIsReportedOnce() throws {
        let board = folder.file("missing.json")
        try Data(#"{"duration": 2, "canvas": {"width": 72, "height": 128, "fps": 10}, "stories": [{"id": "s1", "items": [{"uri": "\#(samples)/beach.mp4", "duration": 0.5}]}, {"id": "s2", "items": [{"uri": "missing.mp4"}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: board))
        let result = try cli.run(["render", board, "--output", folder.file("m")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr.components(separatedBy: "missing.mp4").count - 1, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("stories[1].items[0].uri"), result.stderr)
        XCTAssertFalse(result.stderr.contains("not loaded"), result.stderr)
        // The failure is still in the summary, and --strict still stops.
        let summary = try String(contentsOfFile: folder.file("m/summary.json"), encoding: .utf8)
        XCTAssertTrue(summary.contains("s2"), summary)
        XCTAssertEqual(try cli.run(["render", board, "--output", folder.file("m2"), "--strict"]).status, 2)
    }

    // MARK: - 21. The report's columns

    /// At 1400 px (and narrower and wider), no table of the summary runs out of its box into the
    /// next column: the first-frame table stays clear of the stage times. Measured in headless
    /// Chromium, by a script added to a copy of the page that writes the boxes into the DOM.
    func testTheReportsTablesStayInTheirColumns() throws {
        guard FileManager.default.isExecutableFile(atPath: ReportBrowserTests.chromium) else {
            throw XCTSkip("chromium is not installed")
        }
        let board = folder.file("report.json")
        try Data("""
        {"canvas": {"width": 90, "height": 160, "fps": 10}, "duration": 3,
         "stories": [{"id": "beach", "items": [{"uri": "\(samples)/beach.mp4", "duration": 1}]},
                     {"id": "city", "items": [{"uri": "\(samples)/city.mp4", "duration": 1}]},
                     {"id": "sunset", "items": [{"uri": "\(samples)/sunset.jpg"}]}]}
        """.utf8).write(to: URL(fileURLWithPath: board))
        let out = folder.file("report")
        let result = try cli.run(["render", board, "--output", out, "--report", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let probe = #"""
        <script>
        window.addEventListener('load', () => setTimeout(() => {
          const boxes = [...document.querySelectorAll('#summary > div')].map(d => {
            const r = d.getBoundingClientRect();
            const widest = Math.max(0, ...[...d.querySelectorAll('table')].map(t => t.getBoundingClientRect().right));
            return { title: d.querySelector('h3').textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom, tableRight: widest };
          });
          const pre = Object.assign(document.createElement('pre'), { id: 'probe', textContent: JSON.stringify(boxes) });
          document.body.append(pre);
        }, 300));
        </script>
        """#
        let page = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        try (page + probe).write(toFile: out + "/probe.html", atomically: true, encoding: .utf8)
        for width in [1400, 1280, 1000] {
            let boxes = try measure(out + "/probe.html", width: width)
            XCTAssertTrue(boxes.contains { $0.title.hasPrefix("First frame") }, "\(boxes)")
            for box in boxes {
                XCTAssertLessThanOrEqual(box.tableRight, box.right + 0.5, "\(width) px: \(box.title)'s table leaves its box")
                for other in boxes where other.title != box.title {
                    let apart = box.right <= other.left + 0.5 || other.right <= box.left + 0.5
                        || box.bottom <= other.top + 0.5 || other.bottom <= box.top + 0.5
                    XCTAssertTrue(apart, "\(width) px: \(box.title) overlaps \(other.title)")
                }
            }
        }
    }

    struct SummaryBox: Decodable {
        var title: String
        var left, right, top, bottom, tableRight: Double
    }

    /// The summary's boxes as Chromium lays the page out at `width` pixels.
    func measure(_ page: String, width: Int) throws -> [SummaryBox] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ReportBrowserTests.chromium)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--window-size=\(width),900",
                             "--user-data-dir=" + folder.file("chromium-\(width)"),
                             "--virtual-time-budget=3000", "--dump-dom", "file://" + page]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let dom = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let start = try XCTUnwrap(dom.range(of: #"<pre id="probe">"#), "no probe in the page: \(dom.suffix(500))")
        let end = try XCTUnwrap(dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex))
        let text = String(dom[start.upperBound..<end.lowerBound])
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        return try JSONDecoder().decode([SummaryBox].self, from: Data(text.utf8))
    }
}
