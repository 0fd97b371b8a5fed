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
