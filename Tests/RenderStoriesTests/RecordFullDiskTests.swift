import Foundation
import XCTest

/// A recording whose MP4 segments go to a disk that fills (a real tmpfs, filled by another
/// file, as another program on the disk would): that output is lost, once, with the disk's
/// reason, and back when the disk has room again; the HLS beside it goes on to the end whole;
/// what the disk holds is files that play and no temporary one, nor a file without its header.
/// Before, the loss was said five times in 6 s (once for every file tried), the first time
/// without the reason, two headerless files were left ("moov atom not found"), and the final
/// summary said the output closed.
final class RecordFullDiskTests: XCTestCase {
    func testADiskThatFillsLosesItsOutputAndTheOthersGoOn() throws {
        let disk: SmallDisk
        do {
            disk = try SmallDisk(megabytes: 4)
        } catch {
            if ProcessInfo.processInfo.environment["CI"] == "true" { XCTFail("CI must make the small disk: \(error)") }
            throw XCTSkip("\(error)")
        }
        let folder = ScratchFolder()
        let board = try RecordBoards.recordedRoom(in: folder)
        let segments = disk.path + "/segments"
        try FileManager.default.createDirectory(atPath: segments, withIntermediateDirectories: true)
        try disk.leave(freeBytes: 60_000)
        let hls = HLSFolder(path: folder.file("hls"))
        let recording = try Recording(board, out: folder.file("rec"),
                                      ["--duration", "12", "--hls", hls.path, "--hls-segment", "1", "--hls-window", "0",
                                       "--segments", segments, "--segment-time", "2"], folder: folder)
        XCTAssertTrue(recording.waitFor("output_lost", output: "segments", seconds: 20), "\(recording.events)")
        // Two boundaries later the disk has room again: another program removed its file.
        XCTAssertTrue(recording.waitFor("segment_closed", output: "hls", count: 4, seconds: 20), "\(recording.events)")
        try FileManager.default.removeItem(atPath: disk.path + "/filler")
        XCTAssertEqual(recording.exitStatus(within: 60), 0, "the recording ends at its duration: \(recording.said)")

        let lost = recording.events("output_lost", output: "segments")
        XCTAssertEqual(lost.count, 1, "lost once: \(recording.events)")
        let error = lost.first?["error"] as? String ?? ""
        XCTAssertTrue(error.lowercased().contains("space"), "says the disk is full: \(error)")
        let lostAt = lost.first?["t"] as? Double ?? .infinity
        let hlsAfter = recording.events("segment_closed", output: "hls").filter { ($0["t"] as? Double ?? 0) > lostAt }
        XCTAssertGreaterThanOrEqual(hlsAfter.count, 2, "the HLS goes on after the loss: \(recording.events)")
        let back = recording.events("output_back", output: "segments")
        XCTAssertEqual(back.count, 1, "back once the disk has room: \(recording.events)")
        let backAt = back.first?["t"] as? Double ?? .infinity
        XCTAssertFalse(recording.events("segment_closed", output: "segments").filter { ($0["t"] as? Double ?? 0) > backAt }.isEmpty,
                       "a whole segment after the return: \(recording.events)")

        XCTAssertTrue(hls.playlist.hasSuffix("#EXT-X-ENDLIST\n"), hls.playlist)
        let frames = try XCTUnwrap(recording.record?["frames"] as? Int, "\(recording.summary ?? [:])")
        XCTAssertEqual(try MediaReadBack.decodedFrames(hls.path + "/index.m3u8"), frames, "the HLS holds every frame")
        let outputs = recording.record?["outputs"] as? [[String: Any]] ?? []
        XCTAssertEqual(outputs.first { $0["output"] as? String == "segments" }?["state"] as? String, "closed", "\(outputs)")

        let left = try FileManager.default.contentsOfDirectory(atPath: segments)
        XCTAssertEqual(left.filter { $0.contains(".tmp") || $0.hasPrefix(".") }, [], "no temporary file on the full disk")
        for name in left where name.hasSuffix(".mp4") {
            XCTAssertNoThrow(try MediaReadBack.decodedFrames(segments + "/" + name), "\(name) reads whole to its last fragment")
        }
    }
}
