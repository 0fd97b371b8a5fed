import Compositor
import Foundation
@testable import StoryPlayback
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

/// The PNG writer's own threads: every frame submitted is written whole, a failure is reported
/// (not lost), and the threads run at a lower priority than the render.
final class FrameWriterTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func testEveryFrameIsWrittenThroughTheBoundedQueue() throws {
        let writer = FrameWriter(options: PNGOptions(), maxInFlight: 2, workers: 2)
        var images: [RGBAImage] = []
        for n in 0..<12 {
            let image = RGBAImage(width: 16, height: 8, fill: RGBAColor(red: UInt8(n * 20), green: 3, blue: 4))
            images.append(image)
            writer.submit(image, frame: n, to: "\(folder)/\(n).png")
        }
        try writer.finish()
        for (n, image) in images.enumerated() {
            XCTAssertEqual(try RGBAImage(contentsOfPNG: "\(folder)/\(n).png"), image, "frame \(n)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).count, 12, "no temporary files left")
    }

    func testAFailedWriteIsReportedByFinish() {
        let writer = FrameWriter(options: PNGOptions(), maxInFlight: 2, workers: 1)
        writer.submit(RGBAImage(width: 4, height: 4), frame: 0, to: "\(folder)/missing/0.png")
        writer.submit(RGBAImage(width: 4, height: 4), frame: 1, to: "\(folder)/1.png")
        XCTAssertThrowsError(try writer.finish())
        XCTAssertEqual(writer.failure?.frame, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(folder)/1.png"), "later frames are still written")
    }

    /// Frames are written by several threads out of order: the failure kept is the lowest
    /// frame's, so every frame before it is known to be on disk, and the message names the
    /// frame whose file failed rather than the one submitted when the failure was noticed.
    func testTheLowestFailedFrameIsTheOneReported() {
        let writer = FrameWriter(options: PNGOptions(), maxInFlight: 4, workers: 2)
        for n in 0..<10 {
            let path = n >= 6 ? "\(folder)/missing/\(n).png" : "\(folder)/\(n).png"
            writer.submit(RGBAImage(width: 4, height: 4), frame: n, to: path)
        }
        writer.waitForQueuedFrames()
        XCTAssertEqual(writer.failure?.frame, 6)
        XCTAssertEqual(writer.failure?.path, "\(folder)/missing/6.png")
        XCTAssertEqual(writer.lastSubmitted, 9)
        for n in 0..<6 { XCTAssertTrue(FileManager.default.fileExists(atPath: "\(folder)/\(n).png"), "frame \(n)") }
    }

    func testEncoderThreadsRunBelowTheRenderPriority() throws {
        // Only the threads this writer starts: an encoder of an earlier test may still be
        // ending (under ASan it lingered, and left the count one short when it went).
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task"))
        let writer = FrameWriter(options: PNGOptions(), maxInFlight: 1, workers: 2)
        var lowered = 0
        for _ in 0..<200 where lowered < 2 {
            Thread.sleep(forTimeInterval: 0.01)
            lowered = try threads(withNice: Int(FrameWriter.encoderNiceness)).subtracting(before).count
        }
        XCTAssertEqual(lowered, 2, "both encoder threads at nice \(FrameWriter.encoderNiceness)")
        XCTAssertEqual(try threads(withNice: 0).isEmpty, false, "this thread is not lowered")
        try writer.finish()
    }

    /// This process's threads at a nice value, by id, from /proc/self/task/*/stat (field 19).
    private func threads(withNice nice: Int) throws -> Set<String> {
        let task = "/proc/self/task"
        return Set(try FileManager.default.contentsOfDirectory(atPath: task).filter { tid in
            guard let stat = try? String(contentsOfFile: "\(task)/\(tid)/stat", encoding: .utf8),
                  let close = stat.range(of: ")", options: .backwards) else { return false }
            let fields = stat[close.upperBound...].split(separator: " ")
            return fields.count > 16 && Int(fields[16]) == nice
        })
    }
}
