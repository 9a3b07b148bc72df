"""@host_gcc: the pinned GCC 12, binutils and sysroot, unpacked from Debian bookworm packages.

The packages of toolchains/cc/host_gcc_debs.lock are fetched by sha256
(toolchains/debian_packages.bzl).
The packages are unpacked into one tree that is both the installation and the sysroot;
host_gcc_tree.py then makes it self-contained (relative symlinks, the tools' libraries) and
writes the wrappers under bin/ that every compile, link and nvcc's host compiler run.
"""

load("//toolchains:debian_packages.bzl", "DEBIAN_TREE_ATTRS", "cached_debian_tree", "run_or_fail", "unpack_pinned_debs")

def _make_tree(rctx):
    python = rctx.which("python3") or fail("python3 not on PATH: @host_gcc asks it for the mirror")
    debs = unpack_pinned_debs(rctx, python, rctx.attr.lock, "toolchains/cc/update_host_gcc_lock.py")
    rctx.report_progress("making the tree self-contained")
    if "libc6" not in debs:
        fail("@%s: %s pins no libc6, the sysroot's glibc" % (rctx.name, rctx.attr.lock))
    run_or_fail(rctx, "host_gcc_tree.py", [python, rctx.path(rctx.attr._tree), ".", debs["libc6"]])
    rctx.delete("_debs")

def _host_gcc_impl(rctx):
    cached_debian_tree(rctx, Label("//toolchains/cc:host_gcc_repository.bzl"), _make_tree)
    rctx.template("BUILD.bazel", rctx.attr.build_file, {
        "{exec_root}": "external/" + rctx.name,
    })

host_gcc_repository = repository_rule(
    implementation = _host_gcc_impl,
    attrs = DEBIAN_TREE_ATTRS | {
        "build_file": attr.label(default = "//toolchains/cc:BUILD.host_gcc.bazel", allow_single_file = True),
        "lock": attr.label(default = "//toolchains/cc:host_gcc_debs.lock", allow_single_file = True),
        "_tree": attr.label(default = "//toolchains/cc:host_gcc_tree.py", allow_single_file = True),
    },
    doc = "GCC 12 + binutils + sysroot from sha256-pinned bookworm packages (host_gcc_debs.lock).",
)
