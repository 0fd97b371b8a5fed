#include "memory_policy.h"

#include <stdlib.h> // defines __GLIBC__ on glibc systems

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int live_stories_map_allocations_from(int bytes) {
#if defined(__GLIBC__)
    // An mmapped block freed before this call (at start-up) may already have raised the trim
    // threshold along with the mmap threshold; both are set so neither keeps that raise.
    return mallopt(M_MMAP_THRESHOLD, bytes) && mallopt(M_TRIM_THRESHOLD, bytes);
#else
    (void)bytes;
    return 0;
#endif
}

int live_stories_give_back_free_pages(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}
