"""Pinned Debian bookworm packages, fetched and unpacked by a repository rule.

Shared by @host_gcc (toolchains/cc) and @host_python (toolchains/python). Each package of a
lock (`package version sha256 size pool_path`, written by the lock's update script) is
downloaded by sha256 from the machine's own Debian mirror (asked of
tools/bazel_install/debian_apt.py at fetch time, so no host is written into the tree)
through Bazel's repository cache: a new output base reuses the verified files, and a file
whose digest differs fails the fetch, which leaves no repository. The finished tree is
stored by the contents of its lock and of the code that makes it (toolchains/tree_cache.bzl),
so a new output base links it instead of unpacking and patching it again.
"""

load("//toolchains:tree_cache.bzl", "TREE_CACHE_ATTRS", "cached_tree")

# The attributes every repository rule that calls cached_debian_tree has beside its own
# `lock` and `_tree` (the tree script): the mirror finder, and the modules its tree script
# imports (part of the tree's key, so an edit to them refetches the tree).
DEBIAN_TREE_ATTRS = TREE_CACHE_ATTRS | {
    "_apt": attr.label(default = "//tools/bazel_install:debian_apt.py", allow_single_file = True),
    "_tree_imports": attr.label_list(default = [
        "//tools/bazel_install:prefix_patching.py",
        "//tools/bazel_install:bazel_rc.py",
    ]),
}

def cached_debian_tree(rctx, rule_file, make_tree):
    """Fills the root with make_tree(rctx)'s tree, or links the one stored for these inputs.

    Args:
      rctx: the repository context, with DEBIAN_TREE_ATTRS, `lock` and `_tree`.
      rule_file: the label of the .bzl file that defines the rule (its code decides the tree).
      make_tree: function(rctx) that unpacks (unpack_pinned_debs), runs the tree script and
        removes its temporary files.
    """
    cached_tree(
        rctx,
        key_material = [],
        key_files = [rctx.attr.lock, rctx.attr._tree, Label("//toolchains:debian_packages.bzl"), rule_file] +
                    rctx.attr._tree_imports,
        fetch = make_tree,
    )

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
