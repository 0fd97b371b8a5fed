#ifndef LIVE_STORIES_CFFMPEG_SHIM_H
#define LIVE_STORIES_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/avutil.h>
#include <libavutil/imgutils.h>
#include <libavutil/display.h>
#include <libavutil/opt.h>
#include <libavutil/error.h>
#include <libavutil/pixdesc.h>
// libavfilter: its types only. It is not linked; StoryMedia's FilterLibrary opens it (dlopen)
// the first time a filter graph is built, so a call made straight to it fails to link.
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>

// Swift imports neither function-like macros nor macros built from them, so the few
// FFmpeg needs are re-exported here as functions.

/// `AVERROR(e)`: an FFmpeg error code from a POSIX errno value.
static inline int cffmpeg_averror(int posix_error) { return AVERROR(posix_error); }

/// `AVERROR_EOF`: end of file.
static inline int cffmpeg_averror_eof(void) { return AVERROR_EOF; }

/// `AVERROR(EAGAIN)`: the decoder wants more input (or has more output) first.
static inline int cffmpeg_averror_eagain(void) { return AVERROR(EAGAIN); }

/// `AVERROR_EXIT`: an interrupt callback asked the call to stop.
static inline int cffmpeg_averror_exit(void) { return AVERROR_EXIT; }

/// The HTTP status behind one of FFmpeg's `AVERROR_HTTP_*` codes: 400, 401, 403 or 404; 499 for
/// another 4xx and 599 for a 5xx (FFmpeg keeps only their class); 0 for any other code.
static inline int cffmpeg_http_status(int code) {
    switch (code) {
    case AVERROR_HTTP_BAD_REQUEST: return 400;
    case AVERROR_HTTP_UNAUTHORIZED: return 401;
    case AVERROR_HTTP_FORBIDDEN: return 403;
    case AVERROR_HTTP_NOT_FOUND: return 404;
    case AVERROR_HTTP_OTHER_4XX: return 499;
    case AVERROR_HTTP_SERVER_ERROR: return 599;
    default: return 0;
    }
}

/// `AV_NOPTS_VALUE`: "no timestamp".
static inline int64_t cffmpeg_nopts_value(void) { return AV_NOPTS_VALUE; }

/// `AV_TIME_BASE`: the time base of format-level durations (microseconds).
static inline int cffmpeg_time_base(void) { return AV_TIME_BASE; }

/// `av_err2str` is a macro around a compound literal; this writes into the caller's buffer.
static inline void cffmpeg_error_string(int code, char *buffer, size_t size) {
    av_strerror(code, buffer, size);
}


#include <stdio.h>

// FFmpeg explains most failures only in its log ("Picture size 16000x16000 is invalid"), not in
// the return code. This keeps the last error-level line per thread, so a failed story can carry
// FFmpeg's own words. Swift cannot write a C-variadic callback, hence C here. Only
// FFmpegLogging.swift calls these, so a single copy of the buffer exists.

static inline char *cffmpeg_log_buffer(void) {
    static _Thread_local char buffer[512];
    return buffer;
}

static inline void cffmpeg_log_callback(void *context, int level, const char *format, va_list arguments) {
    (void)context;
    if (level > AV_LOG_ERROR) return;
    char *buffer = cffmpeg_log_buffer();
    vsnprintf(buffer, 512, format, arguments);
    size_t length = 0;
    while (length < 511 && buffer[length]) length++;
    while (length > 0 && (buffer[length - 1] == '\n' || buffer[length - 1] == ' ')) buffer[--length] = 0;
}

/// Installs the capturing log callback (nothing is printed).
static inline void cffmpeg_capture_log(void) { av_log_set_callback(cffmpeg_log_callback); }

/// Clears and returns the last captured error line of this thread ("" when there is none).
static inline void cffmpeg_take_last_log(char *out, size_t size) {
    char *buffer = cffmpeg_log_buffer();
    snprintf(out, size, "%s", buffer);
    buffer[0] = 0;
}

#endif
