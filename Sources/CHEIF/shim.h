// libheif for Swift: HEIC, HEIF and AVIF photos. libheif reports errors as returned structs
// (no setjmp/longjmp), so Swift calls it directly; `HEIFPhoto` owns what it allocates.
//
// The module is not linked to libheif: `HEIFLibrary` opens it the first time a photo needs it
// (`dlopen`), because libheif and its decoder plugin (libde265, whose constructors run at
// load) cost every process about 7 ms at start, and most renders show no HEIF photo. The
// header is here for its types, and for the table below, whose members take their types from
// the header's own declarations, so the Swift side cannot call a function with the wrong one.
#ifndef LIVE_STORIES_CHEIF_SHIM_H
#define LIVE_STORIES_CHEIF_SHIM_H

#include <libheif/heif.h>

#define STORY_HEIF_FUNCTION(name) __typeof__(heif_##name) *_Nonnull name

/// The libheif functions the program calls, looked up by name (`dlsym` of `heif_<member>`).
struct story_heif_functions {
    STORY_HEIF_FUNCTION(init);
    STORY_HEIF_FUNCTION(get_version);
    STORY_HEIF_FUNCTION(have_decoder_for_format);
    STORY_HEIF_FUNCTION(context_alloc);
    STORY_HEIF_FUNCTION(context_free);
    STORY_HEIF_FUNCTION(context_read_from_file);
    STORY_HEIF_FUNCTION(context_read_from_memory);
    STORY_HEIF_FUNCTION(context_get_number_of_top_level_images);
    STORY_HEIF_FUNCTION(context_get_primary_image_handle);
    STORY_HEIF_FUNCTION(image_handle_release);
    STORY_HEIF_FUNCTION(image_handle_get_width);
    STORY_HEIF_FUNCTION(image_handle_get_height);
    STORY_HEIF_FUNCTION(image_handle_has_alpha_channel);
    STORY_HEIF_FUNCTION(image_handle_get_luma_bits_per_pixel);
    STORY_HEIF_FUNCTION(image_handle_get_nclx_color_profile);
    STORY_HEIF_FUNCTION(image_handle_get_color_profile_type);
    STORY_HEIF_FUNCTION(image_handle_get_raw_color_profile_size);
    STORY_HEIF_FUNCTION(image_handle_get_raw_color_profile);
    STORY_HEIF_FUNCTION(decode_image);
    STORY_HEIF_FUNCTION(image_release);
    STORY_HEIF_FUNCTION(image_get_width);
    STORY_HEIF_FUNCTION(image_get_height);
    STORY_HEIF_FUNCTION(image_get_colorspace);
    STORY_HEIF_FUNCTION(image_get_chroma_format);
    STORY_HEIF_FUNCTION(image_get_bits_per_pixel_range);
    STORY_HEIF_FUNCTION(image_get_plane_readonly);
    STORY_HEIF_FUNCTION(image_get_nclx_color_profile);
    STORY_HEIF_FUNCTION(nclx_color_profile_free);
};

#undef STORY_HEIF_FUNCTION

/// The major version of the libheif the header describes: the file to open is
/// `libheif.so.<major>`, the ABI the table was written for.
static inline int story_heif_major_version(void) { return LIBHEIF_NUMERIC_VERSION >> 24; }

#endif
