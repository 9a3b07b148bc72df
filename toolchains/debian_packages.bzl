"""Pinned Debian bookworm packages, fetched and unpacked by a repository rule.

Shared by @host_gcc (toolchains/cc) and @host_python (toolchains/python). Each package of a
lock (`package version sha256 size pool_path`, written by the lock's update script) is
downloaded by sha256 from the machine's own Debian mirror (asked of
tools/bazel_install/debian_apt.py at fetch time, so no host is written into the tree)
through Bazel's repository cache: a new output base reuses the verified files, and a file
whose digest differs fails the fetch, which leaves no repository.
"""

# The attributes every repository rule that calls unpack_pinned_debs has beside its own:
# the mirror finder, and the modules its tree script imports (naming them makes an edit to
# them refetch the tree).
DEBIAN_TREE_ATTRS = {
    "_apt": attr.label(default = "//tools/bazel_install:debian_apt.py", allow_single_file = True),
    "_tree_imports": attr.label_list(default = [
        "//tools/bazel_install:prefix_patching.py",
        "//tools/bazel_install:bazel_rc.py",
    ]),
}

def watch_tree_imports(rctx):
    """Names the tree script's imported modules as inputs of the repository."""
    for module in rctx.attr._tree_imports:
        rctx.path(module)

def _read_lock(rctx, lock):
    pins = []
    for number, line in enumerate(rctx.read(lock).splitlines()):
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 5:
            fail("%s:%d: expected 5 tab-separated fields" % (lock, number + 1))
        pins.append(struct(package = fields[0], sha256 = fields[2], pool_path = fields[4]))
    return pins

def run_or_fail(rctx, what, command):
    """Runs `command` in the repository; fails the fetch with its stderr. Returns stdout."""
    result = rctx.execute(command, quiet = True)
    if result.return_code != 0:
        fail("@%s: %s failed (exit %d):\n%s" % (rctx.name, what, result.return_code, result.stderr))
    return result.stdout

def _fetch_failure(rctx, pin, lock, update_script):
    # Bazel will not fetch a plain-http file without a checksum, so the file the mirror
    # serves cannot be fetched again to name its digest here; Bazel's warning does.
    return ("@%s: could not fetch %s (%s) with the sha256 pinned in %s. If Bazel's warning " +
            "above says 'Checksum was ... but wanted ...', the mirror serves another file " +
            "under this version: find out why before re-pinning it with %s. Otherwise " +
            "check that apt reaches the machine's Debian mirror; if it dropped this " +
            "version, run that script and commit the new lock.") % (
        rctx.name,
        pin.package,
        pin.pool_path,
        lock,
        update_script,
    )

def unpack_pinned_debs(rctx, python, lock, update_script):
    """Downloads and unpacks every package of `lock` into the repository's root.

    Args:
      rctx: the repository context, with DEBIAN_TREE_ATTRS.
      python: the interpreter that runs debian_apt.py.
      lock: the lock's label.
      update_script: what regenerates the lock, for the failure message.

    Returns:
      The .deb files, relative to the root, keyed by package; the caller deletes "_debs".
    """
    mirror = run_or_fail(rctx, "finding the Debian mirror", [python, rctx.path(rctx.attr._apt)]).strip()
    pins = _read_lock(rctx, lock)
    rctx.report_progress("downloading %d pinned Debian packages" % len(pins))
    debs = {}
    for pin in pins:
        deb = "_debs/" + pin.pool_path.split("/")[-1]
        url = "%s/%s" % (mirror, pin.pool_path)
        if not rctx.download(url = url, output = deb, sha256 = pin.sha256, allow_fail = True).success:
            fail(_fetch_failure(rctx, pin, lock, update_script))
        run_or_fail(rctx, "unpacking " + pin.package, ["dpkg-deb", "-x", deb, "."])
        debs[pin.package] = deb
    return debs
