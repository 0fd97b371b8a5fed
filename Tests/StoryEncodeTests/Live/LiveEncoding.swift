import Compositor
import Foundation
@testable import StoryEncode
@testable import StoryMedia

/// An output that keeps what it is given: the packets' stream, timestamps, sizes and keyframes.
final class KeptPackets: LiveOutput {
    struct Kept: Equatable {
        var stream: LiveStreams.Kind
        var pts: Int64
        var dts: Int64
        var size: Int
        var keyframe: Bool
    }
    let name: String
    private(set) var kept: [Kept] = []
    private(set) var started = false
    private(set) var finished = false
    init(_ name: String = "kept") { self.name = name }
    func start(_ streams: LiveStreams) throws(MediaError) { started = true }
    func write(_ packet: Packet, stream: LiveStreams.Kind) {
        kept.append(Kept(stream: stream, pts: packet.presentationTimestamp, dts: packet.decodingTimestamp, size: packet.size,
                         keyframe: packet.isKeyframe))
    }
    func finish() { finished = true }
    func abandon() {}
    var video: [Kept] { kept.filter { $0.stream == .video } }
}

/// A recording's encode, fed `frames` frames of a moving picture and their sound at 30 fps.
enum LiveEncoding {
    static let fps = 30.0
    /// A whole second, so that segment cuts at UTC multiples fall on frame boundaries.
    static let startedAt = 1_800_000_000.0

    static func encode(frames: Int, gop: Int = 15, size: (Int, Int) = (64, 96), into outputs: [any LiveOutput]) throws {
        var options = ClipOptions(path: "")
        options.tune = "zerolatency"
        options.gopFrames = gop
        options.preset = "ultrafast"
        let encoder = try LiveEncoder(options: options, width: size.0, height: size.1, fps: fps, startedAt: startedAt, outputs: outputs)
        let samplesPerFrame = 1600
        for n in 0..<frames {
            var image = RGBAImage(width: size.0, height: size.1, fill: RGBAColor(red: UInt8(n * 7 % 256), green: 40, blue: UInt8(n * 3 % 256)))
            image.pixels[(n * 4) % image.pixels.count] = 255
            try encoder.append(frame: image, index: n)
            let tone = (0..<samplesPerFrame).flatMap { i -> [Float] in
                let v = Float(sin(Double(n * samplesPerFrame + i) * 2 * .pi * 440 / 48000) * 0.2)
                return [v, v]
            }
            try encoder.append(audio: tone)
        }
        try encoder.finish()
    }
}
