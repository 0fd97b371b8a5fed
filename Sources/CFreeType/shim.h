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

/// Load flags for a colour glyph rendered at once: a colour emoji font's bitmap (CBDT, sbix) as
/// premultiplied BGRA (FT_LOAD_COLOR | FT_LOAD_RENDER).
static inline FT_Int32 story_ft_colour_flags(void) {
    return FT_LOAD_COLOR | FT_LOAD_RENDER;
}

/// FT_IS_SCALABLE(face): whether the face has outlines (a colour emoji font may have bitmaps only).
static inline int story_ft_is_scalable(FT_Face face) {
    return FT_IS_SCALABLE(face) ? 1 : 0;
}

/// FT_HAS_KERNING(face): whether the face has a kerning table FT_Get_Kerning reads.
static inline int story_ft_has_kerning(FT_Face face) {
    return FT_HAS_KERNING(face) ? 1 : 0;
}

/// The version of the FreeType this process runs with (`FT_Library_Version`), as major, minor
/// and patch; all 0 when no library could be made.
static inline void story_ft_version(FT_Int *major, FT_Int *minor, FT_Int *patch) {
    FT_Library library;
    *major = *minor = *patch = 0;
    if (FT_Init_FreeType(&library) != 0) return;
    FT_Library_Version(library, major, minor, patch);
    FT_Done_FreeType(library);
}

#endif
