import Foundation
@testable import StoryEncode
@testable import StoryMedia
import StoryTestSupport
import XCTest

/// A recording's file outputs, read back by ffprobe: `--segments` (fragmented MP4s named by
/// their UTC start, cut at UTC multiples of the segment time, each from 0) and `--hls` (fMP4
/// segments, a sliding window, the program date time, the end of the playlist).
final class FileOutputTests: XCTestCase {
    private func frames(_ path: String) throws -> (video: Int, start: Double) {
        let text = String(decoding: try ExternalProgram.run("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v",
                                                                         "-show_entries", "stream=nb_read_frames,start_time",
                                                                         "-of", "csv=p=0", path]), as: UTF8.self)
        let fields = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        return (Int(fields.last ?? "") ?? -1, Double(fields.first ?? "") ?? -1)
    }

    func testSegmentsAreNamedByTheirUTCStartAndCutAtUTCMultiples() throws {
        let folder = ScratchFolder()
        let log = OutputLog()
        let segments = SegmentFiles(folder: folder.path, segmentSeconds: 1, log: log)
        // 2.5 s from 08:00:00 UTC (1_800_000_000 is 2027-01-15T08:00:00Z), keyframes every half second.
        try LiveEncoding.encode(frames: 75, gop: 15, into: [segments])
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(names, ["20270115T080000Z.mp4", "20270115T080001Z.mp4", "20270115T080002Z.mp4"])
        let counted = try names.map { try frames(folder.file($0)) }
        XCTAssertEqual(counted.map(\.video), [30, 30, 15])
        XCTAssertEqual(counted.map(\.start), [0, 0, 0])
        let closed = log.takeEvents().compactMap { event -> Double? in
            if case .segmentClosed(_, let seconds, let bytes) = event.kind, bytes > 0 { return seconds }
            return nil
        }
        XCTAssertEqual(closed, [1, 1, 0.5])
    }

    func testASegmentIsReadableBeforeItIsFinished() throws {
        let folder = ScratchFolder()
        let segments = SegmentFiles(folder: folder.path, segmentSeconds: 300, log: OutputLog())
        try LiveEncoding.encode(frames: 60, gop: 30, into: [segments, Unfinishing(segments)])
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
        // Abandoned (as by a kill -9): the fragments written so far play; at most a second is lost.
        XCTAssertGreaterThanOrEqual(try frames(folder.file(name)).video, 30)
    }

    func testHLSKeepsItsWindowAndEndsThePlaylistAtAStop() throws {
        let folder = ScratchFolder()
        let hls = HLSOutput(folder: folder.path, segmentSeconds: 0.5, window: 2, log: OutputLog())
        try LiveEncoding.encode(frames: 90, gop: 15, into: [hls])
        let playlist = try String(contentsOfFile: folder.file(HLSOutput.playlistName), encoding: .utf8)
        let listed = playlist.split(separator: "\n").filter { $0.hasSuffix(".m4s") }
        XCTAssertEqual(listed, ["segment-000004.m4s", "segment-000005.m4s"])
        XCTAssertEqual(playlist.components(separatedBy: "#EXT-X-PROGRAM-DATE-TIME:").count - 1, 2)
        XCTAssertTrue(playlist.hasSuffix("#EXT-X-ENDLIST\n"))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        XCTAssertFalse(files.contains("segment-000000.m4s"), "segments out of the window are deleted: \(files)")
        XCTAssertTrue(files.contains("init.mp4"))
    }

    func testAnHLSWindowOfZeroIsAnEventPlaylistThatKeepsEverySegment() throws {
        let folder = ScratchFolder()
        let hls = HLSOutput(folder: folder.path, segmentSeconds: 0.5, window: 0, log: OutputLog())
        try LiveEncoding.encode(frames: 60, gop: 15, into: [hls])
        let playlist = try String(contentsOfFile: folder.file(HLSOutput.playlistName), encoding: .utf8)
        XCTAssertTrue(playlist.contains("#EXT-X-PLAYLIST-TYPE:EVENT"))
        XCTAssertEqual(playlist.split(separator: "\n").filter { $0.hasSuffix(".m4s") }.count, 4)
        XCTAssertEqual(try frames(folder.file(HLSOutput.playlistName)).video, 60)
    }
}

/// Stands for a `kill -9` of the output beside it: when the encode finishes, it abandons it
/// first, so the other's `finish` finds nothing open.
private final class Unfinishing: LiveOutput {
    let name = "unfinishing"
    private let other: any LiveOutput
    init(_ other: any LiveOutput) { self.other = other }
    func start(_ streams: LiveStreams) throws(MediaError) {}
    func write(_ packet: Packet, stream: LiveStreams.Kind) {}
    func prepareToFinish() { other.abandon() }
    func finish() {}
    func abandon() {}
}
