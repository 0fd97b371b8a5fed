// libheif for Swift: HEIC, HEIF and AVIF photos. libheif reports errors as returned structs
// (no setjmp/longjmp), so Swift calls it directly; `HEIFPhoto` owns what it allocates.
#ifndef LIVE_STORIES_CHEIF_SHIM_H
#define LIVE_STORIES_CHEIF_SHIM_H

#include <libheif/heif.h>

#endif
