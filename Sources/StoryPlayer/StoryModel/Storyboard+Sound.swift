import Foundation

extension Storyboard {
    /// The loudest an item's `volume` may make it: 2 (+6.02 dB).
    static let volumes = 0.0...2.0

    /// An item's `volume`: a gain from 0 to 2, or decibels as a string (`"-6dB"`, `"+3 dB"`).
    static func volume(_ reader: inout ObjectReader) -> Double? {
        guard let value = reader.raw("volume") else { return nil }
        let path = reader.path("volume"), problems = reader.problems
        let problem = { (why: String) -> Double? in
            problems.record(StoryboardError(path: path, message: why + "; expected a gain from 0 to 2, or decibels such as \"-6dB\""))
            return nil
        }
        switch value {
        case .number(let gain) where gain.isFinite:
            return volumes.contains(gain) ? gain : problem("\(ObjectReader.format(gain)) is out of range")
        case .string(let text):
            guard let decibels = decibels(text) else { return problem("\"\(text)\" is not a gain") }
            let gain = pow(10, decibels / 20)
            return gain <= volumes.upperBound * (1 + 1e-9) ? min(gain, volumes.upperBound) : problem("\"\(text)\" is louder than +6 dB")
        default:
            return problem("got \(value.kind)")
        }
    }

    /// "-6dB", "+3 dB", "0 db" → their number of decibels.
    private static func decibels(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasSuffix("db") else { return nil }
        let number = trimmed.dropLast(2).trimmingCharacters(in: .whitespaces)
        guard let value = Double(number), value.isFinite else { return nil }
        return value
    }
}
