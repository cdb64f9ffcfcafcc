#include "FuzzDriver.h"

// Provided by libclang_rt.fuzzer (linked by -sanitize=fuzzer).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *, size_t));

int FuzzDriver_run(int argc, char **argv, FuzzDriver_TestOneInput test) {
    return LLVMFuzzerRunDriver(&argc, &argv, test);
}
