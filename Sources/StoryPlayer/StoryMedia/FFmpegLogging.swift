internal import CFFmpeg

/// FFmpeg's log: nothing is printed (messages reach users through the trace), but the last
/// error line of each thread is kept, because FFmpeg often explains a failure only there.
///
/// Only this file calls the shim's log functions, so there is one copy of their buffer.
package enum FFmpegLogging {
    private static let configured: Void = {
        if getenv("LIVE_STORIES_FFMPEG_LOG") != nil {
            av_log_set_level(AV_LOG_INFO)
        } else {
            av_log_set_level(AV_LOG_ERROR)
            cffmpeg_capture_log()
        }
    }()

    package static func configureOnce() { _ = configured }

    /// The last error line FFmpeg logged on this thread since the last call, if any.
    static func takeLastMessage() -> String? {
        var buffer = [CChar](repeating: 0, count: 512)
        cffmpeg_take_last_log(&buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? nil : text
    }
}
