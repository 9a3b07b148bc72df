"""Compiler flags shared by several packages."""

# The simulated devices compute on the host: the host engine's loops, the host BLAS
# executor, the stream workers and the allocators they call per tensor. These libraries are
# optimised in every compilation mode: at fastbuild's -O0 (the default, which tests and
# `bazel build //third_device/torch_cuda:all` use) an elementwise op on 4096 floats took
# ~500 us instead of ~45 us. Every other library keeps the mode's flags, so a header touch
# does not recompile the generated registration units at -O2 (+40% each).
HOT_PATH_COPTS = ["-O2"]
