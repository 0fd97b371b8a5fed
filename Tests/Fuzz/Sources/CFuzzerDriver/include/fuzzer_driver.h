#ifndef LIVE_STORIES_FUZZER_DRIVER_H
#define LIVE_STORIES_FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer's driver (`LLVMFuzzerRunDriver`, from the toolchain's libclang_rt.fuzzer) over
/// `test_one`, with libFuzzer's own command line. A fuzz target's `main` calls this: SwiftPM
/// names every executable's entry point itself, so libFuzzer's `main` cannot be the one used.
int story_fuzz_main(int argc, char **argv, int (*test_one)(const uint8_t *data, size_t size));

#endif
