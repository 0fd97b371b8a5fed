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
              Canvas.sides.contains(width), Canvas.sides.contains(height) else { return nil }
        self.width = width
        self.height = height
    }

    static var defaultValueDescription: String { "WxH" }
}

/// `--fps` and `--duration`, shared by the commands that play a storyboard's timeline, with the
/// storyboard format's own bounds, so an override cannot reach a value the JSON could not.
struct TimelineOverrides: ParsableArguments {
    @Option(help: ArgumentHelp("Frames per second, overriding the storyboard's (\(Canvas.frameRates.spoken)).", valueName: "fps"))
    var fps: Double?

    @Option(help: ArgumentHelp("Timeline seconds to render, overriding the storyboard's (\(Storyboard.durations.spoken)).", valueName: "seconds"))
    var duration: Double?

    func validate() throws {
        if let fps, !Canvas.frameRates.contains(fps) {
            throw ValidationError("--fps must be \(Canvas.frameRates.spoken)")
        }
        if let duration, !Storyboard.durations.contains(duration) {
            throw ValidationError("--duration must be \(Storyboard.durations.spoken) seconds")
        }
    }
}

extension ClosedRange<Double> {
    /// The range as help text and usage errors say it: "1 to 240", "0.001 to 86400".
    var spoken: String { "\(Self.spoken(lowerBound)) to \(Self.spoken(upperBound))" }

    private static func spoken(_ number: Double) -> String {
        number == number.rounded() ? String(Int(number)) : String(number)
    }
}

extension ClosedRange<Int> {
    /// The range as help text and usage errors say it: "1 to 256".
    var spoken: String { "\(lowerBound) to \(upperBound)" }
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
