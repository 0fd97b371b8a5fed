// FreeType for Swift: the public header, and inline helpers for the function-like macros Swift
// cannot import (load flags, the kerning test).
#ifndef LIVE_STORIES_CFREETYPE_SHIM_H
#define LIVE_STORIES_CFREETYPE_SHIM_H

#include <ft2build.h>
#include FT_FREETYPE_H

/// Load flags for a hinted glyph rendered at once to 8-bit anti-aliased coverage
/// (FT_LOAD_RENDER | FT_LOAD_TARGET_NORMAL).
static inline FT_Int32 story_ft_render_flags(void) {
    return FT_LOAD_RENDER | FT_LOAD_TARGET_NORMAL;
}

/// FT_HAS_KERNING(face): whether the face has a kerning table FT_Get_Kerning reads.
static inline int story_ft_has_kerning(FT_Face face) {
    return FT_HAS_KERNING(face) ? 1 : 0;
}

#endif
