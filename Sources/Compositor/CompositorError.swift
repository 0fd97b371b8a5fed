import StoryBase

/// A failure the environment caused while encoding, decoding or writing pictures.
public struct CompositorError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case pngEncode, pngDecode, fileWrite, fileRead, font
    }

    public let code: Code
    public let message: String
    /// The library's or the system's own words, when there are any.
    public let cause: String?

    public init(_ code: Code, _ message: String, cause: String? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        cause.map { "\(message): \($0)" } ?? message
    }

    /// A file the picture was read from or written to, as the drawing library said it before
    /// files moved to StoryBase: the same code, words and cause.
    public init(_ error: FileError) {
        self.init(error.code == .write ? .fileWrite : .fileRead, error.message, cause: error.cause)
    }
}
