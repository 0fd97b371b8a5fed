/// Why a render could not run or finish.
public struct RenderError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The output folder or a file in it cannot be written (exit 1).
        case output
        /// A paged feed's first page could not be loaded (exit 1).
        case feed
        /// The options ask for something this storyboard cannot give (exit 2, a usage error).
        case options
    }

    public let code: Code
    public let message: String
    public let cause: String?

    public init(_ code: Code, _ message: String, cause: String? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        cause.map { "\(message): \($0)" } ?? message
    }
}
