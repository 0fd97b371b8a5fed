// Little CMS 2 for Swift: a photo's embedded ICC profile converted to sRGB. lcms2 reports
// errors by return values (no setjmp/longjmp); `ColourProfile` owns its profiles and transforms.
#ifndef LIVE_STORIES_CLITTLECMS_SHIM_H
#define LIVE_STORIES_CLITTLECMS_SHIM_H

#include <lcms2.h>

/// TYPE_RGBA_8 and TYPE_RGB_8, which are macros Swift cannot import.
static inline cmsUInt32Number story_lcms_rgba8(void) { return TYPE_RGBA_8; }
static inline cmsUInt32Number story_lcms_rgb8(void) { return TYPE_RGB_8; }

#endif
