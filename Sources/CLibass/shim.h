// libass for Swift: captions (WebVTT and SRT cues, made into an ASS track) drawn as players draw
// subtitles. libass reports errors by return values (no setjmp/longjmp), so Swift calls it
// directly; `CaptionRenderer` (StoryMedia) owns what it allocates.
#ifndef LIVE_STORIES_CLIBASS_SHIM_H
#define LIVE_STORIES_CLIBASS_SHIM_H

#include <stdarg.h>
#include <ass/ass.h>

/// libass prints its messages below level 5 to stderr unless a callback takes them; the CLI's
/// stderr is for the user's errors, and a caption's problems come back as values, so they are
/// dropped. (A C callback, because its `va_list` argument cannot be received in Swift.)
static void story_ass_ignore_message(int level, const char *format, va_list arguments, void *data) {
    (void)level; (void)format; (void)arguments; (void)data;
}

static inline void story_ass_quiet(ASS_Library *library) {
    ass_set_message_cb(library, story_ass_ignore_message, 0);
}

#endif
