#pragma once
#include <stddef.h>
#include <stdint.h>

// SwiftPM gives every executable its own entry point, so libFuzzer's main() is never
// linked in; each target's main.swift hands control to libFuzzer's driver instead.
typedef int (*FuzzDriver_TestOneInput)(const uint8_t *data, size_t size);

int FuzzDriver_run(int argc, char **argv, FuzzDriver_TestOneInput test);
