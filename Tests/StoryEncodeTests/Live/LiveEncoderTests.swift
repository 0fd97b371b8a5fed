@testable import StoryEncode
@testable import StoryMedia
import XCTest

/// A recording's one encode (`LiveEncoder`): every output gets every packet, the video's
/// timestamps run frame by frame with no hole, keyframes come every GOP, and nothing is
/// reordered (zerolatency: no B-frames), so a push sends each picture as soon as it is drawn.
final class LiveEncoderTests: XCTestCase {
    func testEveryOutputGetsTheSamePacketsFromOneEncode() throws {
        let outputs = [KeptPackets("a"), KeptPackets("b"), KeptPackets("c")]
        try LiveEncoding.encode(frames: 45, into: outputs)
        XCTAssertTrue(outputs.allSatisfy { $0.started && $0.finished })
        XCTAssertEqual(outputs[0].video.count, 45)
        XCTAssertGreaterThan(outputs[0].kept.filter { $0.stream == .audio }.count, 60)
        XCTAssertEqual(outputs[0].kept, outputs[1].kept)
        XCTAssertEqual(outputs[0].kept, outputs[2].kept)
    }

    func testVideoTimestampsRunFrameByFrameWithKeyframesEveryGOP() throws {
        let output = KeptPackets()
        try LiveEncoding.encode(frames: 60, gop: 15, into: [output])
        XCTAssertEqual(output.video.map(\.pts), (0..<60).map(Int64.init))
        XCTAssertEqual(output.video.map(\.dts), output.video.map(\.pts), "no B-frames: decode order is presentation order")
        XCTAssertEqual(output.video.indices.filter { output.video[$0].keyframe }, [0, 15, 30, 45])
    }

    func testSoundTimestampsNeverGoBack() throws {
        let output = KeptPackets()
        try LiveEncoding.encode(frames: 30, into: [output])
        let sound = output.kept.filter { $0.stream == .audio }.map(\.pts)
        XCTAssertEqual(sound, sound.sorted())
        XCTAssertEqual(Set(sound).count, sound.count)
        // One second of sound at 48 kHz: AAC frames of 1024 samples, the encoder's priming before 0.
        XCTAssertEqual(Double(sound.last! + 1024 - sound.first!) / 48000, 1.0 + 1024.0 / 48000, accuracy: 0.03)
    }
}
