import ArgumentParser
import Compositor
import StoryPlayer

/// `--size 1080x1920`.
struct CanvasSize: ExpressibleByArgument, Equatable {
    var width: Int
    var height: Int

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (16...8192).contains(width), (16...8192).contains(height) else { return nil }
        self.width = width
        self.height = height
    }

    static var defaultValueDescription: String { "WxH" }
}

extension PNGFilter: ExpressibleByArgument {}
extension PNGStrategy: ExpressibleByArgument {}

extension PlaybackClock: ExpressibleByArgument {}

extension ProgressStyle: ExpressibleByArgument {}

/// `--frames 120..240`: frames 120 to 239.
struct FrameRange: ExpressibleByArgument {
    var range: Range<Int>

    init?(argument: String) {
        let parts = argument.components(separatedBy: "..")
        guard parts.count == 2, let start = Int(parts[0]), let end = Int(parts[1]), start >= 0, end > start else { return nil }
        range = start..<end
    }

    static var defaultValueDescription: String { "A..B" }
}
