import Foundation

/// A music track mixed under the stories' sound (the storyboard's `music`): looped or cut to
/// the render, faded in and out, and ducked while a story's own sound plays.
public struct MusicBed: Sendable, Equatable {
    public var source: MediaSource
    /// Where in the file the music starts, seconds (`in`).
    public var start = 0.0
    /// Its gain, 0…2 (`volume`: a number or decibels, as an item's).
    public var volume = 1.0
    /// Seconds of fade from silence at the start, and to silence at the render's end when the
    /// storyboard has a `duration` (`fade_in`, `fade_out`).
    public var fadeIn = 0.0
    public var fadeOut = 0.0
    /// Played again from `start` when it ends (`loop`, default true); otherwise silence after.
    public var loops = true
    /// How far it goes down while a story's own sound plays, dB (`duck`, default −15; 0: never).
    public var duck = -15.0

    public init(source: MediaSource) {
        self.source = source
    }
}

extension Storyboard {
    /// The storyboard's `music` block.
    static func music(_ root: inout ObjectReader, folder: String) throws(StoryboardError) -> MusicBed? {
        try music(&root) { MediaSource(uri: $0, relativeTo: folder) }
    }

    /// A `music` block (the storyboard's or a story's), its `uri` made a source by `resolve`.
    static func music(_ root: inout ObjectReader, resolve: (String) -> MediaSource) throws(StoryboardError) -> MusicBed? {
        guard var block = root.object("music") else { return nil }
        guard let uri = block.string("uri") else { throw block.missing("uri") }
        guard !uri.isEmpty else { throw StoryboardError(path: block.path("uri"), message: "must not be empty") }
        var bed = MusicBed(source: resolve(uri))
        bed.start = block.number("in", in: 0...86_400) ?? bed.start
        bed.volume = volume(&block) ?? bed.volume
        bed.fadeIn = block.number("fade_in", in: 0...600) ?? bed.fadeIn
        bed.fadeOut = block.number("fade_out", in: 0...600) ?? bed.fadeOut
        bed.loops = block.bool("loop") ?? bed.loops
        bed.duck = block.number("duck", in: -60...0) ?? bed.duck
        block.rejectUnknownKeys()
        return bed
    }

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
