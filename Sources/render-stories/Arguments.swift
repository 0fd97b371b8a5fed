import ArgumentParser
import Compositor
import StoryPlayer

/// `--size 1080x1920`. Any two whole numbers parse, so that `validate()` can say what is wrong
/// with them (`--size 10x10: each side must be 16 to 8192`) instead of "invalid value".
struct CanvasSize: ExpressibleByArgument, Equatable {
    var width: Int
    var height: Int
    var text: String

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else { return nil }
        self.width = width
        self.height = height
        text = argument
    }

    /// Why the size cannot be used, or nil.
    var problem: String? {
        Canvas.sides.contains(width) && Canvas.sides.contains(height)
            ? nil : "--size \(text): each side must be \(Canvas.sides.spoken)"
    }

    static var defaultValueDescription: String { "WxH" }
}

/// `--fps` and `--duration`, shared by the commands that play a storyboard's timeline, with the
/// storyboard format's own bounds, so an override cannot reach a value the JSON could not.
struct TimelineOverrides: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Frames per second, overriding the storyboard's (\(Canvas.frameRates.spoken)).", valueName: "fps"))
    var fps: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Timeline seconds to render, overriding the storyboard's (\(Storyboard.durations.spoken)).", valueName: "seconds"))
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

/// `--frames 120..240` (frames 120 to 239), `120..` (to the end), `..240` (from the start), or
/// `120` (that frame alone). The bounds are checked against the render's frame count once the
/// storyboard is read (`resolved(frames:)`).
struct FrameRange: ExpressibleByArgument {
    var lower: Int?
    var upper: Int?
    var text: String

    /// A negative bound is kept, for `problem` to name: read unconditionally, `-1..3` is a
    /// value, and "frames are numbered from 0" says more than "invalid value".
    init?(argument: String) {
        text = argument
        if !argument.contains("..") {
            guard let frame = Int(argument), frame < .max else { return nil }
            lower = frame
            upper = frame + 1
            return
        }
        let parts = argument.components(separatedBy: "..")
        guard parts.count == 2 else { return nil }
        if !parts[0].isEmpty { guard let start = Int(parts[0]) else { return nil }; lower = start }
        if !parts[1].isEmpty { guard let end = Int(parts[1]) else { return nil }; upper = end }
        guard lower != nil || upper != nil else { return nil }
    }

    /// What is wrong with the range before the frame count is known: a negative bound, or an
    /// empty range; nil when nothing is.
    var problem: String? {
        if (lower ?? 0) < 0 || (upper ?? 0) < 0 { return "--frames \(text): frames are numbered from 0" }
        if let lower, let upper, lower >= upper { return "--frames \(text): the range is empty (A..B needs A < B)" }
        return nil
    }

    /// The frames of a render of `total` frames, or a usage error that names the count.
    func resolved(frames total: Int) throws -> Range<Int> {
        let start = lower ?? 0, end = upper ?? total
        guard start < end else { throw ValidationError("--frames \(text): the range is empty") }
        guard end <= total else {
            throw ValidationError("--frames \(text): the render has \(total) frames (0..\(total)), so a range must end by \(total)")
        }
        return start..<end
    }

    static var defaultValueDescription: String { "A..B" }
}

/// `--set name=value`: a variant's values of the storyboard's `parameters`.
struct ParameterArguments: ParsableArguments {
    @Option(name: .customLong("set"),
            help: ArgumentHelp("A value for one of the storyboard's parameters (its \"parameters\" object), as name=value; give --set again for each. Every \"{{name}}\" in the storyboard is filled with it; a parameter not set takes its \"default\". A value the parameter's type refuses, or a name the storyboard does not declare, is a storyboard error (exit 2).", valueName: "name=value"))
    var sets: [String] = []

    func validate() throws {
        for set in sets {
            guard let equals = set.firstIndex(of: "="), equals != set.startIndex else {
                throw ValidationError("--set \(set): give name=value, e.g. --set product=Shoes")
            }
        }
    }

    /// The values by name; a name set twice takes its last value, as a later flag overrides.
    var values: [String: String] {
        var values: [String: String] = [:]
        for set in sets {
            guard let equals = set.firstIndex(of: "=") else { continue }
            values[String(set[..<equals])] = String(set[set.index(after: equals)...])
        }
        return values
    }
}
