"""A repository unpacked from wheels pinned by sha256 in wheels.lock.

The wheels come through the machine's own pip (its configured indexes and find-links),
so no download host is written here; pip's --require-hashes checks each file. The unpacked
tree is stored by its pins (toolchains/tree_cache.bzl), so a new output base links it
instead of asking pip and unpacking again.
"""

load("//toolchains:tree_cache.bzl", "TREE_CACHE_ATTRS", "cached_tree")

# The manylinux tags the x86_64 wheels we pin carry; pip matches any of them.
_PLATFORMS = [
    "manylinux_2_28_x86_64",
    "manylinux_2_27_x86_64",
    "manylinux_2_17_x86_64",
    "manylinux2014_x86_64",
    "manylinux_2_12_x86_64",
    "manylinux_2_5_x86_64",
]

def _requirement_name(line):
    return line.split("==")[0].strip().lower().replace("_", "-")

def _pinned_lines(rctx):
    wanted = [p.lower() for p in rctx.attr.packages]
    pinned = {}
    for line in rctx.read(rctx.attr.lock).splitlines():
        line = line.strip()
        if line and not line.startswith("#") and _requirement_name(line) in wanted:
            pinned[_requirement_name(line)] = line
    missing = [p for p in wanted if p not in pinned]
    if missing:
        fail("@%s: %s not pinned in %s; add `name==version --hash=sha256:...` lines" % (
            rctx.name,
            ", ".join(missing),
            rctx.attr.lock,
        ))
    return [pinned[p] for p in wanted]

# Extracts the members of a zip whose names start with one of the given prefixes.
_EXTRACT_MEMBERS = """
import sys, zipfile
archive, prefixes = zipfile.ZipFile(sys.argv[1]), tuple(sys.argv[2:])
names = [n for n in archive.namelist() if n.startswith(prefixes)]
missing = [p for p in prefixes if not any(n.startswith(p) for n in names)]
if missing:
    sys.exit("no member of %s starts with %s" % (sys.argv[1], ", ".join(missing)))
archive.extractall(".", names)
"""

def _extract_members(rctx, wheel, prefixes):
    result = rctx.execute(
        [rctx.which("python3"), "-c", _EXTRACT_MEMBERS, str(wheel)] + prefixes,
        quiet = True,
    )
    if result.return_code != 0:
        fail("@%s: could not extract %s from %s: %s" % (
            rctx.name,
            ", ".join(prefixes),
            wheel.basename,
            result.stderr,
        ))

def _fetch_wheels(rctx):
    rctx.file("_requirements.txt", "\n".join(_pinned_lines(rctx)) + "\n")
    command = [
        rctx.which("python3") or fail("python3 not on PATH: the wheels are fetched with its pip"),
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--require-hashes",
        "--only-binary=:all:",
        "--python-version=3.11",
        "--implementation=cp",
        "--dest=_wheels",
        "--requirement=_requirements.txt",
    ] + ["--platform=" + p for p in _PLATFORMS]
    rctx.report_progress("pip download " + ", ".join(rctx.attr.packages))
    result = rctx.execute(command, timeout = 1800, quiet = True)
    if result.return_code != 0:
        fail(("@%s: pip could not fetch the pinned wheels. A hash mismatch means the file " +
              "differs from the one locked in %s (re-pin it deliberately); otherwise check " +
              "that pip reaches its index.\n%s") % (rctx.name, rctx.attr.lock, result.stderr))
    for wheel in rctx.path("_wheels").readdir():
        if rctx.attr.extract_only:
            _extract_members(rctx, wheel, rctx.attr.extract_only)
            continue

        # A wheel is a zip; extract() picks the format from the file name.
        as_zip = "_zips/%s.zip" % wheel.basename
        rctx.symlink(wheel, as_zip)
        rctx.extract(as_zip)
    rctx.delete("_zips")
    rctx.delete("_wheels")
    rctx.delete("_requirements.txt")

def _pinned_wheels_impl(rctx):
    cached_tree(
        rctx,
        key_material = _pinned_lines(rctx) + ["extract_only: " + " ".join(rctx.attr.extract_only)],
        key_files = [Label("//toolchains/wheels:pinned_wheels.bzl")],
        fetch = _fetch_wheels,
    )
    rctx.symlink(rctx.attr.build_file, "BUILD.bazel")

pinned_wheels = repository_rule(
    implementation = _pinned_wheels_impl,
    attrs = TREE_CACHE_ATTRS | {
        "build_file": attr.label(mandatory = True, allow_single_file = True),
        "extract_only": attr.string_list(
            doc = "Extract only the members whose paths start with one of these (default: all).",
        ),
        "lock": attr.label(default = "//toolchains/wheels:wheels.lock", allow_single_file = True),
        "packages": attr.string_list(mandatory = True, doc = "Names as written in the lock."),
    },
    doc = "Unpacks sha256-pinned wheels from wheels.lock into one repository.",
)
