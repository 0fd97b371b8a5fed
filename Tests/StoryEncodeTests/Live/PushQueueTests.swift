@testable import StoryEncode
@testable import StoryMedia
import XCTest

/// What a push holds while its ingest is slow or gone (`PushQueue`): never more than its limit,
/// the rest dropped and said in seconds, and sending always (re)starting at a keyframe with no
/// sound from before it.
final class PushQueueTests: XCTestCase {
    /// 4 s of a recording at 30 fps, keyframes every 15 frames, with its sound.
    private func packets() throws -> [QueuedPacket] {
        let output = PacketsKept()
        try LiveEncoding.encode(frames: 120, gop: 15, into: [output])
        return output.packets
    }

    func testANeverSentQueueStaysWithinItsLimitAndSaysWhatItDropped() throws {
        var queue = PushQueue()
        var dropped = 0.0
        for packet in try packets() { dropped += queue.add(packet, limit: 1.0) ?? 0 }
        var held: [QueuedPacket] = []
        while let packet = queue.next() { held.append(packet) }
        let video = held.filter { $0.stream == .video }
        XCTAssertLessThanOrEqual(video.last!.seconds - video.first!.seconds, 1.0 + 1e-9)
        XCTAssertTrue(video.first!.packet.isKeyframe)
        // Everything before what is held was dropped, and said.
        XCTAssertEqual(dropped, video.first!.seconds, accuracy: 1e-6)
    }

    func testANewConnectionStartsAtTheLastKeyframeWithoutEarlierSound() throws {
        var queue = PushQueue()
        let all = try packets().prefix { $0.seconds < 0.9 }
        for packet in all { XCTAssertNil(queue.add(packet, limit: 2)) }
        let lost = queue.startAtKeyframe()
        let first = try XCTUnwrap(queue.next())
        XCTAssertEqual(first.stream, .video)
        XCTAssertTrue(first.packet.isKeyframe)
        XCTAssertEqual(first.seconds, 0.5, accuracy: 1e-9)
        XCTAssertEqual(lost, 0.5, accuracy: 1e-9)
        while let packet = queue.next() {
            XCTAssertGreaterThanOrEqual(packet.seconds, 0.5 - 1e-9, "\(packet.stream) at \(packet.seconds)")
        }
    }

    func testSendingStartsAtTheFirstKeyframe() throws {
        var queue = PushQueue()
        for packet in try packets() where packet.seconds >= 0.1 { _ = queue.add(packet, limit: 10) }
        let first = try XCTUnwrap(queue.next())
        XCTAssertTrue(first.packet.isKeyframe)
        XCTAssertEqual(first.seconds, 0.5, accuracy: 1e-9)
    }
}

/// An output that keeps its packets as a push's queue takes them.
final class PacketsKept: LiveOutput {
    let name = "kept"
    private(set) var packets: [QueuedPacket] = []
    private var streams: LiveStreams?
    func start(_ streams: LiveStreams) throws(MediaError) { self.streams = streams }
    func write(_ packet: Packet, stream: LiveStreams.Kind) {
        packets.append(QueuedPacket(packet: packet, stream: stream, seconds: streams!.seconds(packet.presentationTimestamp, stream)))
    }
    func finish() {}
    func abandon() {}
}
