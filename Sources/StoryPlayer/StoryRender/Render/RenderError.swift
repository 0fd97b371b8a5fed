import Compositor
import StoryEncode
import StoryMedia

/// Why a render could not run or finish.
public struct RenderError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The output folder or a file in it cannot be written (exit 1).
        case output
        /// A paged feed's first page could not be loaded (exit 1).
        case feed
        /// No font for the text the pictures carry (error cards, labels, the contact sheet and
        /// the timeline) could be opened (exit 1).
        case font
        /// The options ask for something this storyboard cannot give (exit 2, a usage error).
        case options
    }

    public let code: Code
    public let message: String
    /// The error underneath (a `MediaError`, a `CompositorError`...), for a caller to inspect.
    public let cause: (any Error & Sendable)?
    /// What a render that failed half-way left behind, for the user to know what to trust
    /// ("out/board is not a finished render: …"); printed on a line of its own after the error.
    public internal(set) var aftermath: String?

    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// A cause known only as text.
    public init(_ code: Code, _ message: String, cause: String) {
        self.init(code, message, cause: ErrorText(cause))
    }

    /// A clip writer could not start or finish: an FFmpeg without libx264 (or libx265,
    /// libvpx-vp9, SVT-AV1, libwebp) cannot make the file at all, which is not a failure to
    /// write it.
    static func clip(_ error: MediaError, format: ExportFormat = .mp4H264) -> RenderError {
        RenderError(.output, error.code == .missingEncoder ? "cannot make the \(format.kind)" : "cannot write the \(format.kind)",
                    cause: error)
    }

    /// A render draws text (error cards, room chips, the contact sheet, the timeline) that a
    /// missing font would make impossible; better said before the first frame than found at a
    /// failed story.
    static func checkFont() throws(RenderError) {
        do {
            try Typeface.checkAvailable()
        } catch {
            throw RenderError(.font, "cannot draw text", cause: error)
        }
    }

    public var description: String {
        let error = cause.map { "\(message): \($0)" } ?? message
        return aftermath.map { "\(error)\n\($0)" } ?? error
    }
}
