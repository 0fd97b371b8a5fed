import CFFmpeg

/// A media item that could not be opened or decoded. These are failures of the input, not
/// bugs: they fail one story, show its error card, and the render goes on.
public struct MediaError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Code: String, Sendable {
        case open, streamInfo, noVideoStream, noAudioStream, unsupportedCodec, decoderSetup, decode, tooLarge, convert, seek, interrupted, timeout, read
    }

    public let code: Code
    /// What went wrong, in the story's terms.
    public let message: String
    /// FFmpeg's own message (`av_strerror`) when an FFmpeg call failed.
    public let cause: String?

    public init(_ code: Code, _ message: String, cause: String? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// An error from an FFmpeg return code, carrying FFmpeg's message for it.
    init(_ code: Code, _ message: String, averror: Int32) {
        let detail = FFmpegLogging.takeLastMessage().map { " (\($0))" } ?? ""
        self.init(code, message, cause: FFmpegError.message(for: averror) + detail)
    }

    public var description: String {
        cause.map { "\(message): \($0)" } ?? message
    }
}

enum FFmpegError {
    /// `av_strerror` for a return code.
    static func message(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        cffmpeg_error_string(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static let endOfFile = cffmpeg_averror_eof()
    static let tryAgain = cffmpeg_averror_eagain()
}
