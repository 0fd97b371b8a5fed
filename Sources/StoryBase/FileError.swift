/// A file or folder the environment would not let us read, write or make (a full disk, a
/// read-only folder, a name that is a file): what `AtomicFile` and `OutputFolder` throw.
///
/// Its own type, not the drawing library's, because every layer writes files (frames, traces,
/// batch records, clips) and none of them needs pictures for it.
public struct FileError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A file or folder could not be made or written.
        case write
        /// A file could not be opened or read.
        case read
    }

    public let code: Code
    /// What the user gave and what we could not do with it ("cannot write out/a.png").
    public let message: String
    /// Why, in plain words or the system's own.
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
