// The helpers are `static inline` in the header; this file only gives the target a source.
#include "raster_support.h"
