/// Why two renders could not be compared (exit 2: what was given is not something to compare).
/// A comparison that ran and found differences is not an error: it is a `ComparisonReport`.
public struct CompareError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A side is missing, is not a render's folder, or cannot be read as a video.
        case input
        /// The report could not be written.
        case output
        /// The options ask for what these renders cannot give (a region outside their frames).
        case options
    }

    public let code: Code
    public let message: String
    /// The error underneath (a `MediaError`, a `CompositorError`...).
    public let cause: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { cause.map { "\(message): \($0)" } ?? message }
}
