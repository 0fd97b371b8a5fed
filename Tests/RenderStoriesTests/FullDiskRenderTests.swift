import Compositor
import Foundation
import XCTest

/// A render into a folder that holds a finished render, on a disk that fills up half-way: the
/// folder must never hold the new render's first frames beside the old one's last under the old
/// summary, and no temporary file may be left (issue 61, items 1, 2 and 17's frame number).
/// Real files on a real small file system (tmpfs), with the built render-stories.
final class FullDiskRenderTests: XCTestCase {
    let cli = CommandLineRunner()

    private func smallDisk() throws -> SmallDisk {
        do {
            return try SmallDisk(megabytes: 16)
        } catch {
            if ProcessInfo.processInfo.environment["CI"] == "true" { XCTFail("CI must make the small disk: \(error)") }
            throw XCTSkip("\(error)")
        }
    }

    /// The earlier render, small; then a bigger one into the same folder with `free` bytes left.
    private func reRender(on disk: SmallDisk, free: Int64, _ outputs: [String]) throws -> CommandLineRunner.Outcome {
        let out = disk.path + "/out"
        let first = try cli.run(["render", cli.demo, "--duration", "3", "--size", "90x160", "--output", out, "--quiet"] + outputs)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/summary.json"))
        try disk.leave(freeBytes: free)
        return try cli.run(["render", cli.demo, "--duration", "3", "--size", "360x640", "--output", out, "--quiet"] + outputs)
    }

    private func names(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    /// The frames left are this render's, 0 to the one before the frame the error names, all
    /// at the new size; the earlier render's summary, trace and clips are gone; the message says
    /// so; nothing temporary is left.
    func testARenderThatFillsTheDiskLeavesOnlyItsOwnFramesAndNoSummary() throws {
        let disk = try smallDisk()
        let result = try reRender(on: disk, free: 400_000, ["--mp4", disk.path + "/out/clip.mp4"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let failed = try XCTUnwrap(result.stderr.firstMatch(of: /cannot write frame (\d+) \(([^)]*)\): no space left on the disk/),
                                   result.stderr)
        let failedFrame = Int(failed.1)!
        XCTAssertEqual(String(failed.2), disk.path + "/out/" + String(format: "frame-%06d.png", failedFrame),
                       "the frame named is the one whose file failed")
        XCTAssertTrue(failedFrame > 0 && failedFrame < 90, result.stderr)
        XCTAssertTrue(result.stderr.contains("\(disk.path)/out is not a finished render: it holds this render's frames 0-\(failedFrame - 1)"
                                             + " and no summary.json; the earlier render's summary.json, lifecycle.jsonl, frames.jsonl and clip.mp4 were "
                                             + "removed before the first frame, and its frames after the failure"), result.stderr)
        let left = try names(in: disk.path + "/out")
        XCTAssertEqual(left, (0..<failedFrame).map { String(format: "frame-%06d.png", $0) }, "only this render's frames, none after")
        for name in left {
            let image = try RGBAImage(contentsOfPNG: disk.path + "/out/" + name)
            XCTAssertEqual([image.width, image.height], [360, 640], "\(name) is the new render's")
        }
    }

    /// A clip that cannot be finished (the GIF's palette pass at the end, `--no-png`): no
    /// `.clip.gif.…tmp` is left, and the earlier render's clip and summary are gone.
    func testAClipThatCannotBeFinishedLeavesNoTemporaryFile() throws {
        let disk = try smallDisk()
        let out = disk.path + "/out"
        let result = try reRender(on: disk, free: 60_000, ["--gif", out + "/clip.gif", "--no-png"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("cannot write the GIF"), result.stderr)
        XCTAssertTrue(result.stderr.contains("\(out) is not a finished render: it holds no frame of this render (--no-png) and no "
                                             + "summary.json; the earlier render's summary.json, lifecycle.jsonl and clip.gif "
                                             + "were removed before the first frame"), result.stderr)
        XCTAssertEqual(try names(in: out), [], "no clip, no summary, no temporary file")
        XCTAssertEqual(try names(in: disk.path), ["filler", "out"])
    }

    /// Of two clips, the one finished before the other failed is kept, whole, and named; the
    /// other leaves no temporary file.
    func testAClipFinishedBeforeAnotherFailedIsKeptAndNamed() throws {
        let disk = try smallDisk()
        let out = disk.path + "/out"
        let result = try reRender(on: disk, free: 120_000, ["--mp4", out + "/clip.mp4", "--gif", out + "/clip.gif", "--no-png"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("cannot write the GIF"), result.stderr)
        XCTAssertTrue(result.stderr.contains("; finished whole: \(out)/clip.mp4"), result.stderr)
        XCTAssertEqual(try names(in: out), ["clip.mp4"])
        let probe = try ExternalProgram.outcome("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v",
                                                                     "-show_entries", "stream=nb_read_frames,width", "-of", "csv=p=0",
                                                                     out + "/clip.mp4"])
        XCTAssertEqual(String(decoding: probe.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "360,90")
    }

    /// With room on the disk, the same re-render replaces everything, as before.
    func testAReRenderWithRoomReplacesTheEarlierRenderWhole() throws {
        let disk = try smallDisk()
        let out = disk.path + "/out"
        let result = try reRender(on: disk, free: 12_000_000, ["--mp4", out + "/clip.mp4"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let left = try names(in: out)
        XCTAssertEqual(left.filter { $0.hasPrefix("frame-") }.count, 90)
        XCTAssertEqual(left.filter { !$0.hasPrefix("frame-") }, ["clip.mp4", "frames.jsonl", "lifecycle.jsonl", "summary.json"])
        XCTAssertEqual(try RGBAImage(contentsOfPNG: out + "/frame-000089.png").width, 360)
    }
}
