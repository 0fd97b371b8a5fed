internal import CFFmpeg

/// A media item that could not be opened or decoded. These are failures of the input, not
/// bugs: they fail one story, show its error card, and the render goes on.
public struct MediaError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Code: String, Sendable {
        case open, streamInfo, noVideoStream, noAudioStream, unsupportedCodec, decoderSetup, decode, tooLarge, convert, seek, interrupted, timeout, read
        /// The FFmpeg in use lacks an encoder the output needs (libx264 for `--mp4`).
        case missingEncoder
    }

    public let code: Code
    /// What went wrong, in the story's terms.
    public let message: String
    /// Why, when something underneath failed: an `FFmpegError` (with its AVERROR code) when an
    /// FFmpeg call failed, another `MediaError` (a live stream's last reconnect), or an
    /// `ErrorText`. An error, not text, so that a caller can ask which call failed and how.
    public let cause: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// A cause known only as text (a refused source, "out of memory").
    public init(_ code: Code, _ message: String, cause: String) {
        self.init(code, message, cause: ErrorText(cause))
    }

    /// An error from an FFmpeg return code, carrying FFmpeg's message for it.
    package init(_ code: Code, _ message: String, averror: Int32) {
        self.init(code, message, cause: FFmpegError(averror, detail: FFmpegLogging.takeLastMessage()))
    }

    /// The FFmpeg failure underneath, if an FFmpeg call is why.
    public var ffmpegError: FFmpegError? { cause as? FFmpegError }

    public var description: String {
        cause.map { "\(message): \($0)" } ?? message
    }

    /// Equal when they say the same: causes are compared by their text.
    public static func == (a: MediaError, b: MediaError) -> Bool {
        a.code == b.code && a.message == b.message && a.cause.map { "\($0)" } == b.cause.map { "\($0)" }
    }
}

/// A failed FFmpeg call: its AVERROR code, `av_strerror`'s text for it, and the last line FFmpeg
/// logged at error level, if any. Its description is the text the traces have always shown.
public struct FFmpegError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The negative AVERROR code the call returned.
    public let code: Int32
    /// `av_strerror` for `code`.
    public let message: String
    /// What FFmpeg logged about it (`FFmpegLogging`), if anything.
    public let detail: String?

    public init(_ code: Int32, detail: String? = nil) {
        self.code = code
        self.message = FFmpegError.message(for: code)
        self.detail = detail
    }

    public var description: String { message + (detail.map { " (\($0))" } ?? "") }

    /// `av_strerror` for a return code.
    static func message(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        cffmpeg_error_string(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    package static let endOfFile = cffmpeg_averror_eof()
    package static let tryAgain = cffmpeg_averror_eagain()
}

/// A cause that is only known as a sentence.
public struct ErrorText: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
