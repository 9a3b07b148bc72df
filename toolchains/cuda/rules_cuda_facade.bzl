"""@rules_cuda: a repository whose cuda/defs.bzl is this project's CUDA rules, for BUILD files
written for bazel-contrib's rules_cuda (load("@rules_cuda//cuda:defs.bzl", ...)).

bazel-contrib/rules_cuda cannot be fetched here. With this facade such a BUILD file builds
unchanged against the hermetic toolchain; where the real rules_cuda is reachable, a
`bazel_dep(name = "rules_cuda")` in place of this repository switches to it. It holds no
rule of its own: only the names defs.bzl defines, re-exported.
"""

_DEFS = '''"""rules_cuda's public names, served by @@//toolchains/cuda:defs.bzl (a facade)."""

load(
    "@@//toolchains/cuda:defs.bzl",
    _cuda_binary = "cuda_binary",
    _cuda_library = "cuda_library",
    _cuda_objects = "cuda_objects",
    _cuda_test = "cuda_test",
    _cuda_toolchain = "cuda_toolchain",
)

cuda_binary = _cuda_binary
cuda_library = _cuda_library
cuda_objects = _cuda_objects
cuda_test = _cuda_test
cuda_toolchain = _cuda_toolchain
'''

def _rules_cuda_facade_impl(rctx):
    rctx.file("BUILD.bazel", "")
    rctx.file("cuda/BUILD.bazel", "")
    rctx.file("cuda/defs.bzl", _DEFS)

rules_cuda_facade = repository_rule(
    implementation = _rules_cuda_facade_impl,
    doc = "@rules_cuda//cuda:defs.bzl over this project's CUDA rules.",
)
