#ifndef LIVE_STORIES_CFFMPEG_SHIM_H
#define LIVE_STORIES_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/avutil.h>
#include <libavutil/imgutils.h>
#include <libavutil/display.h>
#include <libavutil/opt.h>
#include <libavutil/error.h>
#include <libavutil/pixdesc.h>

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

/// `AV_NOPTS_VALUE`: "no timestamp".
static inline int64_t cffmpeg_nopts_value(void) { return AV_NOPTS_VALUE; }

/// `AV_TIME_BASE`: the time base of format-level durations (microseconds).
static inline int cffmpeg_time_base(void) { return AV_TIME_BASE; }

/// `av_err2str` is a macro around a compound literal; this writes into the caller's buffer.
static inline void cffmpeg_error_string(int code, char *buffer, size_t size) {
    av_strerror(code, buffer, size);
}

#endif
