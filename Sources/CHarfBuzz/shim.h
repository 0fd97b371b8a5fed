// HarfBuzz for Swift: shapes a colour emoji (a ZWJ family, a skin tone, a flag's two letters)
// into the glyphs its font draws for it, with the advances libass's line needs. HarfBuzz reports
// failure by return values; `EmojiFont` (StoryMedia) owns what it allocates.
#ifndef LIVE_STORIES_CHARFBUZZ_SHIM_H
#define LIVE_STORIES_CHARFBUZZ_SHIM_H

#include <hb.h>
#include <hb-ot.h>

#endif
