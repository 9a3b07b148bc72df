"""cuda_library: compile .cu with the hermetic nvcc, link like a cc_library.

rules_cuda cannot be fetched here; this macro keeps its cuda_library attributes (srcs, hdrs,
deps, copts, host_copts, defines, includes, linkopts, alwayslink) so targets move to
rules_cuda by changing one load(). The rule is in cuda_library_rule.bzl.

As rules_cuda does, every target is restricted to CUDA-capable configurations: Linux
x86_64 (the platform of the pinned nvidia wheels) with --//toolchains/cuda:enable (on by
default). With --//toolchains/cuda:enable=false, `bazel build //...` skips CUDA targets and
everything that depends on them instead of failing. tests/audits checks that no
cuda_library escapes this restriction.
"""

load(":cuda_library_rule.bzl", _cuda_library_rule = "cuda_library")

CUDA_CAPABLE = select({
    "//toolchains/cuda:is_enabled": [],
    "//conditions:default": ["@platforms//:incompatible"],
}) + [
    "@platforms//cpu:x86_64",
    "@platforms//os:linux",
]

def cuda_library(name, target_compatible_with = [], **kwargs):
    """A rules_cuda-compatible cuda_library, restricted to CUDA-capable configurations.

    Args:
      name: the target name.
      target_compatible_with: further constraints, added to the CUDA ones.
      **kwargs: the rule's attributes (srcs, hdrs, deps, copts, host_copts, ...).
    """
    _cuda_library_rule(
        name = name,
        target_compatible_with = CUDA_CAPABLE + target_compatible_with,
        **kwargs
    )
