"""The host interpreter: its C headers, for building Python extension modules, and its
path, for the Python toolchain (toolchains/python/BUILD.bazel).

rules_python's hermetic interpreters download from GitHub, which these machines cannot
reach; extensions are built for the interpreter that runs the tests (CPython 3.11, the
ABI of the pinned cp311 torch wheel), so its own headers are the right ones.
"""

# The interpreter itself, not the launcher on PATH (a pyenv shim is a shell script that
# picks a version from the environment): actions run exactly this binary.
_QUERY = "; ".join([
    "import os, sys, sysconfig",
    "print(sysconfig.get_paths()['include'])",
    "print('%d.%d' % sys.version_info[:2])",
    "print(os.path.realpath(sys.executable))",
])

def _local_python_impl(rctx):
    python = rctx.which("python3") or fail("python3 not on PATH")
    result = rctx.execute([python, "-c", _QUERY])
    if result.return_code != 0:
        fail("could not ask %s for its include directory:\n%s" % (python, result.stderr))
    include_dir, version, interpreter = result.stdout.strip().splitlines()
    if version != rctx.attr.python_version:
        fail("python3 on PATH is %s; the pinned torch wheel is cp%s: put a Python %s first on PATH" % (
            version,
            rctx.attr.python_version.replace(".", ""),
            rctx.attr.python_version,
        ))
    rctx.symlink(include_dir, "include")
    rctx.file("interpreter.bzl", "PYTHON_INTERPRETER = %r\n" % interpreter)
    rctx.file("BUILD.bazel", """\
cc_library(
    name = "python_headers",
    hdrs = glob(["include/**/*.h"]),
    includes = ["include"],
    visibility = ["//visibility:public"],
)
""")

local_python = repository_rule(
    implementation = _local_python_impl,
    attrs = {"python_version": attr.string(default = "3.11")},
    environ = ["PATH"],
    doc = "The host CPython's headers (@local_python//:python_headers) and path (:interpreter.bzl).",
)
