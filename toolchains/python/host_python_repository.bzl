"""@host_python: CPython 3.11 with its standard library and headers, from Debian bookworm.

The packages of toolchains/python/host_python_debs.lock are fetched by sha256
(toolchains/debian_packages.bzl) and unpacked into one tree; host_python_tree.py then makes
it run from wherever Bazel puts it (bin/python3, relative links, its own libraries,
bytecode). The Python toolchain (toolchains/python/BUILD.bazel) runs it for every
py_binary and py_test; Python extension modules compile against its headers. CPython 3.11:
the ABI of the pinned cp311 torch wheel.
"""

load("//toolchains:debian_packages.bzl", "DEBIAN_TREE_ATTRS", "cached_debian_tree", "run_or_fail", "unpack_pinned_debs")

def _make_tree(rctx):
    python = rctx.which("python3") or fail("python3 not on PATH: @host_python asks it for the mirror")
    unpack_pinned_debs(rctx, python, rctx.attr.lock, "toolchains/python/update_host_python_lock.py")
    rctx.delete("_debs")
    rctx.report_progress("making the interpreter self-contained")
    run_or_fail(rctx, "host_python_tree.py", [python, rctx.path(rctx.attr._tree), "."])

def _host_python_impl(rctx):
    cached_debian_tree(rctx, Label("//toolchains/python:host_python_repository.bzl"), _make_tree)
    rctx.symlink(rctx.attr.build_file, "BUILD.bazel")

host_python_repository = repository_rule(
    implementation = _host_python_impl,
    attrs = DEBIAN_TREE_ATTRS | {
        "build_file": attr.label(default = "//toolchains/python:BUILD.host_python.bazel", allow_single_file = True),
        "lock": attr.label(default = "//toolchains/python:host_python_debs.lock", allow_single_file = True),
        "_tree": attr.label(default = "//toolchains/python:host_python_tree.py", allow_single_file = True),
    },
    doc = "CPython 3.11 + stdlib + headers from sha256-pinned bookworm packages (host_python_debs.lock).",
)
