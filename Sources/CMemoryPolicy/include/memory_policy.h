#ifndef LIVE_STORIES_MEMORY_POLICY_H
#define LIVE_STORIES_MEMORY_POLICY_H

/// Serves allocations of `bytes` or more with their own mappings, returned to the system when
/// freed, and returns free heap space above `bytes` too (glibc `mallopt(M_MMAP_THRESHOLD)` and
/// `mallopt(M_TRIM_THRESHOLD)`, which Swift's Glibc module does not import).
/// Returns 1 on success, 0 where the C library has no such setting.
int live_stories_map_allocations_from(int bytes);

/// Gives the free pages of every heap back to the system, those between blocks still in use
/// too (glibc `malloc_trim(0)`, which Swift's Glibc module does not import).
/// Returns 1 when some memory was given back, 0 when none was or the C library cannot.
int live_stories_give_back_free_pages(void);

#endif
