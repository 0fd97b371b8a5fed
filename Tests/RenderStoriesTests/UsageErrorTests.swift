import Compositor
import Foundation
import XCTest

/// A command's arguments that cannot work are a usage error that says why, before any work.
final class UsageErrorTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// A range past the render is a usage error naming the frame count; it used to render 0
    /// frames and exit 0, or cut the range silently.
    func testFramesOutsideTheRenderAreAUsageError() throws {
        for range in ["200..300", "85..200"] {
            let result = try cli.run(["render", cli.demo, "--duration", "3", "--frames", range, "--output", folder.path + "/r"])
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains("the render has 90 frames"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path + "/r/frame-000085.png"))
    }

    /// `--frames 5`, `5..` and `..10` are accepted.
    func testFramesShortForms() throws {
        for (range, first, count) in [("5", 5, 1), ("85..", 85, 5), ("..3", 0, 3)] {
            let out = folder.path + "/short-\(first)"
            let result = try cli.run(["render", cli.demo, "--duration", "3", "--size", "72x128", "--frames", range,
                                      "--output", out, "--quiet"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let frames = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix("frame-") }.sorted()
            XCTAssertEqual(frames.count, count, range)
            XCTAssertEqual(frames.first, String(format: "frame-%06d.png", first), range)
        }
    }

    /// `--mp4 x.avi` used to write an MP4 under that name.
    func testAClipNamedOtherThanMP4IsRefused() throws {
        let result = try cli.run(["render", cli.demo, "--mp4", folder.path + "/clip.avi", "--output", folder.path + "/r"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("--mp4 \(folder.path)/clip.avi: the clip is an MP4 file"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path + "/clip.avi"))
    }

    /// Usage errors say why.
    func testASizeOutOfBoundsSaysWhy() throws {
        for command in [["render"], ["still", "--page", "0"]] {
            let result = try cli.run(command + [cli.demo, "--size", "10x10", "--output", folder.path + "/s.png"])
            XCTAssertEqual(result.status, 2)
            XCTAssertTrue(result.stderr.contains("--size 10x10: each side must be 16 to 8192"), result.stderr)
        }
    }

    func testHelpForACommandThatDoesNotExistIsAnError() throws {
        let result = try cli.run(["help", "nonexist"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("no command \"nonexist\""), result.stderr)
        XCTAssertEqual(try cli.run(["help", "check"]).status, 0)
    }

    func testCheckOfAnEmptyTraceSaysSo() throws {
        let path = folder.path + "/empty.jsonl"
        FileManager.default.createFile(atPath: path, contents: Data())
        let result = try cli.run(["check", path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stdout.contains("the trace is empty"), result.stdout)
    }

    /// 16. `still --time -1` says the time must be ≥ 0, not that a value is missing.
    func testANegativeStillTimeSaysWhatItMustBe() throws {
        let result = try cli.run(["still", cli.demo, "--page", "0", "--time", "-1", "--output", folder.file("s.png")])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("--time must be ≥ 0"), result.stderr)
        XCTAssertFalse(result.stderr.contains("Missing value"), result.stderr)
    }

    /// 17. An empty `--frames` range is render's usage error, with render's usage.
    func testAnEmptyFrameRangeShowsRendersUsage() throws {
        let result = try cli.run(["render", cli.demo, "--frames", "5..2", "--output", folder.file("r")])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("the range is empty"), result.stderr)
        XCTAssertTrue(result.stderr.contains("render-stories render"), "render's usage: \(result.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("r")), "nothing was created")
    }

    /// A negative `--frames` bound says frames are numbered from 0, not that a value is missing
    /// (argument-parser took `-1..3` for a flag).
    func testANegativeFrameRangeSaysFramesStartAtZero() throws {
        for range in ["-1..3", "-2", "..-1"] {
            let result = try cli.run(["render", cli.demo, "--frames", range, "--output", folder.file("r")])
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains("--frames \(range): frames are numbered from 0"), result.stderr)
            XCTAssertFalse(result.stderr.contains("Missing value"), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("r")), "nothing was created")
        }
    }
}
