/// A storyboard that cannot be used as written. `path` is the JSON path of the offending
/// value, e.g. `stories[1].items[0].uri`; the CLI prints `path: message` and exits 2.
public struct StoryboardError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String {
        path.isEmpty ? message : "\(path): \(message)"
    }
}
