import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// A playing item's pictures are converted on a thread of its own, beside its decode thread, so
/// that the decode thread only decodes; both threads end, with every FFmpeg object they hold
/// (the pictures queued between them too), when the player stops.
final class ConvertThreadTests: XCTestCase {
    /// The process's threads: kernel name → CPU ticks (user + system, `/proc/self/task/*/stat`).
    private func threadTicks() -> [String: Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var ticks: [String: Int] = [:]
        for task in tasks {
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
            let name = String(stat[stat.index(after: open)..<close])
            // After the name: state, then fields 4…; utime and stime are fields 14 and 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { continue }
            ticks[name, default: 0] += user + system
        }
        return ticks
    }

    private func aliveObjects() -> [Int] {
        [FormatContext.alive.load(ordering: .relaxed), CodecContext.alive.load(ordering: .relaxed),
         ScaleContext.alive.load(ordering: .relaxed), Frame.alive.load(ordering: .relaxed), Packet.alive.load(ordering: .relaxed)]
    }

    func testPicturesAreConvertedBesideTheDecodeThreadAndBothEndWithThePlay() throws {
        XCTAssertTrue(LiveServers.waitUntil(5) { self.aliveObjects().allSatisfy { $0 == 0 } },
                      "FFmpeg objects alive before the test: \(aliveObjects())")
        // A small clip drawn on a large canvas: converting costs far more than decoding. Ten of
        // its thirty pictures, so that the decode thread is still running when it is looked at.
        let canvas = Canvas(width: 2160, height: 3840, fps: 30)
        let story = Story(id: "conv", items: [StoryItem(source: MediaSource(uri: Fixture.path("counter.mp4"), relativeTo: "/"))])
        let player = StoryPlaybackController(story: story, canvas: canvas, trace: LifecycleTrace())
        let item = try XCTUnwrap(player.play(item: 0, at: 0))
        for n in 0..<10 { XCTAssertNotNil(item.picture(at: Double(n) / 30), "picture \(n)") }
        let ticks = threadTicks()
        let decoding = try XCTUnwrap(ticks["decode #\(item.id) conv"], "the decode thread, named: \(ticks.keys.sorted())")
        let converting = try XCTUnwrap(ticks["rgba #\(item.id) conv"], "the convert thread, named: \(ticks.keys.sorted())")
        XCTAssertGreaterThan(converting, decoding, "the convert thread converts (\(converting) ticks); the decode thread decodes (\(decoding))")
        XCTAssertGreaterThanOrEqual(converting, 2, "ten pictures at 2160x3840 take more than a tick to convert")
        player.stop(at: 1)
        XCTAssertFalse(item.holdsDecoder)
        XCTAssertTrue(LiveServers.waitUntil(2) { self.aliveObjects().allSatisfy { $0 == 0 } },
                      "FFmpeg objects alive after stop(): \(aliveObjects())")
        XCTAssertTrue(LiveServers.waitUntil(2) { !self.threadTicks().keys.contains { $0.hasPrefix("rgba #\(item.id) ") } },
                      "the convert thread ended with the play")
    }
}
