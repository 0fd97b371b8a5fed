import StoryPlayer

/// An error the page shows: what went wrong, where in the storyboard (a JSON path, empty when
/// the error is not the storyboard's), and the lower-level cause when there is one. Errors are
/// data here because they travel to the page as JSON.
public struct StudioProblem: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public enum Code: String, Sendable, Codable {
        /// The storyboard does not parse or names something wrong.
        case storyboard
        /// A frame could not be drawn.
        case frame
        /// The full render failed to start or ended with an error.
        case render
    }

    public let code: Code
    /// The JSON path of the offending value, e.g. `stories[1].items[0].uri`.
    public let path: String
    public let message: String
    public let cause: String?

    public init(_ code: Code, path: String = "", _ message: String, cause: String? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.cause = cause
    }

    public var description: String {
        (path.isEmpty ? "" : "\(path): ") + message + (cause.map { " (\($0))" } ?? "")
    }

    /// Every error of a storyboard that cannot be used, each with its JSON path.
    static func all(_ error: StoryboardError) -> [StudioProblem] {
        error.all.map { StudioProblem(.storyboard, path: $0.path, $0.message) }
            + (error.unreported > 0 ? [StudioProblem(.storyboard, "… and \(error.unreported) more")] : [])
    }
}
