// libheif for Swift: HEIC, HEIF and AVIF photos. libheif reports errors as returned structs
// (no setjmp/longjmp), so Swift calls it directly; `HEIFPhoto` owns what it allocates.
//
// The module is not linked to libheif: `HEIFLibrary` opens it the first time a photo needs it
// (`story_heif_open`), because libheif and its HEVC plugin (libde265, whose constructors run at
// load) cost every process about 7 ms at start, and most renders show no HEIF photo. The
// header is here for its types and for the table below: each function is named once, in
// `STORY_HEIF_FUNCTIONS`, and both its member's type (from the header's own declaration) and
// the symbol looked up come from that one name, so no call can go to the wrong function or
// with the wrong signature.
#ifndef LIVE_STORIES_CHEIF_SHIM_H
#define LIVE_STORIES_CHEIF_SHIM_H

#include <dlfcn.h>
#include <stddef.h>
#include <libheif/heif.h>

/// The libheif functions the program calls, without their `heif_` prefix.
#define STORY_HEIF_FUNCTIONS(X) \
    X(init) X(get_version) X(have_decoder_for_format) \
    X(context_alloc) X(context_free) X(context_read_from_file) X(context_read_from_memory) \
    X(context_get_number_of_top_level_images) X(context_get_primary_image_handle) \
    X(image_handle_release) X(image_handle_get_width) X(image_handle_get_height) \
    X(image_handle_has_alpha_channel) X(image_handle_get_luma_bits_per_pixel) \
    X(image_handle_get_nclx_color_profile) X(image_handle_get_color_profile_type) \
    X(image_handle_get_raw_color_profile_size) X(image_handle_get_raw_color_profile) \
    X(decode_image) X(image_release) X(image_get_width) X(image_get_height) \
    X(image_get_colorspace) X(image_get_chroma_format) X(image_get_bits_per_pixel_range) \
    X(image_get_plane_readonly) X(image_get_nclx_color_profile) X(nclx_color_profile_free)

#define STORY_HEIF_MEMBER(name) __typeof__(heif_##name) *_Nonnull name;

/// libheif's functions, found by `story_heif_open`: member `name` is `heif_<name>`.
struct story_heif_functions {
    STORY_HEIF_FUNCTIONS(STORY_HEIF_MEMBER)
};

/// Opens `file` (`dlopen`, RTLD_LOCAL: its symbols stay out of the program's global scope) and
/// looks up every function (`dlsym`). The table, or NULL with `*missing` set to what was not
/// found: the file (`dlerror` says why) or the function's name. Never closed: the process
/// keeps the library, as it would a linked one. Called once per process (`HEIFLibrary`).
static inline const struct story_heif_functions *_Nullable
story_heif_open(const char *_Nonnull file, const char *_Nullable *_Nonnull missing) {
    static struct story_heif_functions table;
    void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        *missing = file;
        return NULL;
    }
#define STORY_HEIF_RESOLVE(name) \
    if ((table.name = (__typeof__(table.name))dlsym(handle, "heif_" #name)) == NULL) { \
        *missing = "heif_" #name; \
        return NULL; \
    }
    STORY_HEIF_FUNCTIONS(STORY_HEIF_RESOLVE)
#undef STORY_HEIF_RESOLVE
    return &table;
}

#undef STORY_HEIF_MEMBER

/// The major version of the libheif the header describes: the file to open is
/// `libheif.so.<major>`, the ABI the table was written for.
static inline int story_heif_major_version(void) { return LIBHEIF_NUMERIC_VERSION >> 24; }

#endif
