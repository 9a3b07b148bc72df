"""@host_gcc: the pinned GCC 12, binutils and sysroot, unpacked from Debian bookworm packages.

Each package of toolchains/cc/host_gcc_debs.lock is downloaded by sha256 from the machine's
own Debian mirror (asked of tools/bazel_install/debian_apt.py at fetch time, so no host is
written into the tree) through Bazel's repository cache: a new output base reuses the
verified files, and a file whose digest differs fails the fetch, which leaves no repository.
The packages are unpacked into one tree that is both the installation and the sysroot;
host_gcc_tree.py then makes it self-contained (relative symlinks, the tools' libraries) and
writes the wrappers under bin/ that every compile, link and nvcc's host compiler run.
"""

def _read_lock(rctx):
    pins = []
    for number, line in enumerate(rctx.read(rctx.attr.lock).splitlines()):
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 5:
            fail("%s:%d: expected 5 tab-separated fields" % (rctx.attr.lock, number + 1))
        pins.append(struct(package = fields[0], sha256 = fields[2], pool_path = fields[4]))
    return pins

def _run(rctx, what, command):
    result = rctx.execute(command, quiet = True)
    if result.return_code != 0:
        fail("@%s: %s failed (exit %d):\n%s" % (rctx.name, what, result.return_code, result.stderr))
    return result.stdout

def _fetch_failure(rctx, pin):
    # Bazel will not fetch a plain-http file without a checksum, so the file the mirror
    # serves cannot be fetched again to name its digest here; Bazel's warning does.
    return ("@%s: could not fetch %s (%s) with the sha256 pinned in %s. If Bazel's warning " +
            "above says 'Checksum was ... but wanted ...', the mirror serves another file " +
            "under this version: find out why before re-pinning it with " +
            "toolchains/cc/update_host_gcc_lock.py. Otherwise check that apt reaches the " +
            "machine's Debian mirror; if it dropped this version, run that script and commit " +
            "the new lock.") % (rctx.name, pin.package, pin.pool_path, rctx.attr.lock)

def _host_gcc_impl(rctx):
    python = rctx.which("python3") or fail("python3 not on PATH: @host_gcc asks it for the mirror")
    mirror = _run(rctx, "finding the Debian mirror", [python, rctx.path(rctx.attr._apt)]).strip()
    pins = _read_lock(rctx)
    rctx.report_progress("downloading %d pinned Debian packages" % len(pins))
    for pin in pins:
        deb = "_debs/" + pin.pool_path.split("/")[-1]
        url = "%s/%s" % (mirror, pin.pool_path)
        if not rctx.download(url = url, output = deb, sha256 = pin.sha256, allow_fail = True).success:
            fail(_fetch_failure(rctx, pin))
        _run(rctx, "unpacking " + pin.package, ["dpkg-deb", "-x", deb, "."])
    rctx.report_progress("making the tree self-contained")

    # host_gcc_tree.py imports these: naming them makes an edit to them refetch the tree.
    for module in rctx.attr._tree_imports:
        rctx.path(module)
    glibc = [p.pool_path.split("/")[-1] for p in pins if p.package == "libc6"]
    if not glibc:
        fail("@%s: %s pins no libc6, the sysroot's glibc" % (rctx.name, rctx.attr.lock))
    _run(rctx, "host_gcc_tree.py", [python, rctx.path(rctx.attr._tree), ".", "_debs/" + glibc[0]])
    rctx.delete("_debs")
    rctx.template("BUILD.bazel", rctx.attr.build_file, {
        "{exec_root}": "external/" + rctx.name,
    })

host_gcc_repository = repository_rule(
    implementation = _host_gcc_impl,
    attrs = {
        "build_file": attr.label(default = "//toolchains/cc:BUILD.host_gcc.bazel", allow_single_file = True),
        "lock": attr.label(default = "//toolchains/cc:host_gcc_debs.lock", allow_single_file = True),
        "_apt": attr.label(default = "//tools/bazel_install:debian_apt.py", allow_single_file = True),
        "_tree": attr.label(default = "//toolchains/cc:host_gcc_tree.py", allow_single_file = True),
        "_tree_imports": attr.label_list(default = [
            "//tools/bazel_install:prefix_patching.py",
            "//tools/bazel_install:bazel_rc.py",
        ]),
    },
    doc = "GCC 12 + binutils + sysroot from sha256-pinned bookworm packages (host_gcc_debs.lock).",
)
