/// A storyboard that cannot be used as written. `path` is the JSON path of the offending
/// value, e.g. `stories[1].items[0].uri`; the CLI prints `path: message` and exits 2.
///
/// A storyboard is read to the end even after an error, so that a user sees every mistake at
/// once rather than one per run: the first error is this value's `path` and `message`, the
/// ones after it are in `also` (up to ``StoryboardError/reportLimit`` in all), and
/// `unreported` counts the ones past the limit.
public struct StoryboardError: Error, Sendable, Equatable, CustomStringConvertible {
    /// How many errors one storyboard reports; past that, a count says how many more there are.
    public static let reportLimit = 20

    public let path: String
    public let message: String
    /// The errors found after this one, in the order they appear in the storyboard.
    public package(set) var also: [StoryboardError] = []
    /// Errors found past ``reportLimit``, counted but not listed.
    public package(set) var unreported = 0

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// This error and the ones after it, each on its own (without `also`).
    public var all: [StoryboardError] {
        [StoryboardError(path: path, message: message)] + also
    }

    /// One line per error, `path: message`, and a last line counting those not listed.
    public var description: String {
        var lines = all.map { $0.path.isEmpty ? $0.message : "\($0.path): \($0.message)" }
        if unreported > 0 { lines.append("… and \(unreported) more error\(unreported == 1 ? "" : "s")") }
        return lines.joined(separator: "\n")
    }
}
