"""The CUDA rules, with rules_cuda's names and attributes: cuda_library, cuda_objects,
cuda_binary, cuda_test (and cuda_toolchain, found by toolchain resolution).

rules_cuda cannot be fetched here. These keep its surface, so a BUILD file moves to
bazel-contrib's rules by changing its load() (tests/cuda_rules builds one package with both
spellings: this file, and @rules_cuda//cuda:defs.bzl, which re-exports it). The rules are in
cuda_library_rule.bzl, the actions in nvcc_actions.bzl, the toolchain in toolchain.bzl.

As rules_cuda does, every target is restricted to CUDA-capable configurations: Linux
x86_64 (the platform of the pinned nvidia wheels) with --//toolchains/cuda:enable (on by
default). With --//toolchains/cuda:enable=false, `bazel build //...` skips CUDA targets and
everything that depends on them instead of failing. tests/audits checks that no
cuda_library or cuda_objects escapes this restriction.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_test")
load(
    ":cuda_library_rule.bzl",
    _cuda_library_rule = "cuda_library",
    _cuda_objects_rule = "cuda_objects",
)
load(":toolchain.bzl", _cuda_toolchain = "cuda_toolchain")

cuda_toolchain = _cuda_toolchain

CUDA_CAPABLE = select({
    "//toolchains/cuda:is_enabled": [],
    "//conditions:default": ["@platforms//:incompatible"],
}) + [
    "@platforms//cpu:x86_64",
    "@platforms//os:linux",
]

def cuda_library(name, target_compatible_with = [], **kwargs):
    """A rules_cuda cuda_library, restricted to CUDA-capable configurations.

    Args:
      name: the target name.
      target_compatible_with: further constraints, added to the CUDA ones.
      **kwargs: the rule's attributes (srcs, hdrs, deps, copts, host_copts, archs, rdc, ...).
    """
    _cuda_library_rule(
        name = name,
        target_compatible_with = CUDA_CAPABLE + target_compatible_with,
        **kwargs
    )

def cuda_objects(name, target_compatible_with = [], **kwargs):
    """A rules_cuda cuda_objects (objects for a cuda_library), restricted as cuda_library.

    Args:
      name: the target name.
      target_compatible_with: further constraints, added to the CUDA ones.
      **kwargs: the rule's attributes.
    """
    _cuda_objects_rule(
        name = name,
        target_compatible_with = CUDA_CAPABLE + target_compatible_with,
        **kwargs
    )

# Attributes only the cuda_library of a cuda_binary or cuda_test takes, and the host ones
# renamed for the cc_binary or cc_test (as rules_cuda's macros split them).
_CUDA_ONLY = ["srcs", "hdrs", "deps", "alwayslink", "rdc", "ptxasopts", "archs", "defines", "local_defines", "copts", "linkopts", "includes"]
_HOST_RENAMED = {
    "host_copts": "copts",
    "host_defines": "defines",
    "host_local_defines": "local_defines",
    "host_linkopts": "linkopts",
}

def _split(rule_only, kwargs):
    cuda = {k: v for k, v in kwargs.items() if k not in rule_only}
    cuda.setdefault("alwayslink", True)
    cc = {
        k: v
        for k, v in kwargs.items()
        if k not in _CUDA_ONLY and k not in _HOST_RENAMED and k != "target_compatible_with"
    }
    for cuda_name, cc_name in _HOST_RENAMED.items():
        if cuda_name in kwargs:
            cc[cc_name] = kwargs[cuda_name]
    return cuda, cc

_BINARY_ONLY = ["args", "env", "output_licenses", "visibility", "linkstatic", "linkshared", "stamp", "malloc"]
_TEST_ONLY = ["args", "env", "env_inherit", "size", "timeout", "flaky", "shard_count", "local", "data", "visibility", "linkstatic", "malloc"]

def _linked_cuda_library(cc_rule, rule_only, name, kwargs, testonly = False):
    """A cuda_library `_<name>` of the sources and `cc_rule` `<name>` linking it."""
    cuda, cc = _split(rule_only, kwargs)
    if testonly:
        cuda.setdefault("testonly", True)
    cuda_library(name = "_" + name, **cuda)
    cc_rule(
        name = name,
        deps = ["_" + name],
        target_compatible_with = CUDA_CAPABLE + kwargs.get("target_compatible_with", []),
        **cc
    )

def cuda_binary(name, **kwargs):
    """rules_cuda's cuda_binary: its sources compiled by a cuda_library `_<name>`, linked by a
    cc_binary `<name>` (host_* attributes go to the cc_binary without the prefix).

    Args:
      name: the binary's name.
      **kwargs: cuda_library's and cc_binary's attributes.
    """
    _linked_cuda_library(cc_binary, _BINARY_ONLY, name, kwargs)

def cuda_test(name, **kwargs):
    """rules_cuda's cuda_test: as cuda_binary, linked by a cc_test.

    Args:
      name: the test's name.
      **kwargs: cuda_library's and cc_test's attributes.
    """
    _linked_cuda_library(cc_test, _TEST_ONLY, name, kwargs, testonly = True)
