import Compositor
import Foundation
@testable import StoryModel
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

/// A recording's stream has no hole whatever the machine does: a frame too late to draw is the
/// picture before it again, with its own sound, so the video runs frame by frame and the sound
/// never drops out; the trace is in the folder as it goes, the summary says it was a recording.
final class RecordStreamTests: XCTestCase {
    /// A 3 s clip of a moving test picture with a steady 440 Hz tone.
    private func toneClip(in folder: ScratchFolder) throws -> String {
        let path = folder.file("tone.mp4")
        try ExternalProgram.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x96:rate=30:duration=3",
                                                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3",
                                                    "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", path])
        return path
    }

    func testLateFramesAreRepeatedPicturesWithTheirOwnSound() throws {
        let media = ScratchFolder()
        _ = try toneClip(in: media)
        let board = try Storyboard.parse("""
        {"canvas": {"width": 64, "height": 96, "fps": 30}, "duration": 2.5,
         "stories": [{"id": "tone", "items": [{"uri": "tone.mp4"}]}]}
        """, folder: media.path)
        let segments = ScratchFolder()
        let (summary, trace, folder) = try render(board) { options in
            options.clock = .realtime
            options.writeFrames = false
            var record = RecordOptions()
            var files = RecordOptions.Segments(folder: segments.path)
            files.segmentSeconds = 3600
            record.segments = files
            record.encoding.preset = "ultrafast"
            options.record = record
            options.framesTakenAsLate = { $0 % 10 == 5 }
        }
        XCTAssertEqual(summary.record?.frames, 75)
        XCTAssertGreaterThanOrEqual(summary.record?.lateFrames ?? 0, 7, "the 7 taken as late, and any the machine was late for")
        XCTAssertEqual(summary.record?.running, false)
        let file = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: segments.path).first)
        let path = segments.file(file)
        let pts = String(decoding: try ExternalProgram.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                                                              "packet=pts", "-of", "csv=p=0", path]), as: UTF8.self)
            .split(separator: "\n").compactMap { Int($0) }
        XCTAssertEqual(pts.count, 75, "every frame, the late ones repeated")
        XCTAssertEqual(Set(zip(pts, pts.dropFirst()).map { $1 - $0 }).count, 1, "one step between frames: \(pts.prefix(12))")
        // The sound, decoded: no frame's worth (1600 samples) of silence anywhere after the start.
        let sound = try ExternalProgram.run("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-vn", "-ac", "1", "-f", "s16le", "-"])
        let samples = sound.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        var quiet = 0, longestQuiet = 0
        for sample in samples.dropFirst(4800).dropLast(2400) {
            quiet = abs(Int(sample)) < 300 ? quiet + 1 : 0
            longestQuiet = max(longestQuiet, quiet)
        }
        XCTAssertLessThan(longestQuiet, 400, "a late frame's sound dropped out")
        XCTAssertEqual(trace.filter { $0.event == .segmentClosed }.count, 1)
        let lines = try String(contentsOfFile: folder.file("lifecycle.jsonl"), encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, trace.count, "the trace file has every event")
        XCTAssertTrue(try String(contentsOfFile: folder.file("summary.json"), encoding: .utf8).contains("\"running\": false"))
    }
}
