#!/bin/sh
# The probe toolchain's "nvcc" (rules_test.bzl's resolution_test): analysed, never run.
echo "probe_nvcc.sh is a toolchain-resolution probe, not a compiler" >&2
exit 1
