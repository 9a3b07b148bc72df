"""The prefix's own bazelrc: Debian's rc re-rooted, plus stubs for modules Debian lacks."""

from __future__ import annotations

from pathlib import Path

# Modules that Bazel's built-in MODULE.tools and rules_python name but Debian does not
# ship; only their MODULE.bazel is read, so a module() line and an empty BUILD suffice.
STUB_MODULES = {
    "buildozer": "7.1.2",
    "protobuf": "21.7",
    "zlib": "1.3.1.bcr.3",
    "apple_support": "1.23.1",
}
# Targets that implicit deps name and `bazel query deps(...)` loads, though nothing here
# builds them (@zlib//:zlib is a dep of the py_binary zipper, used only for Python zips).
STUB_BUILD_FILES = {
    "zlib": 'cc_library(name = "zlib", visibility = ["//visibility:public"])\n',
}


def write_prefix_rc(staging_root: Path, final_root: Path) -> None:
    debian_rc = (staging_root / "etc/bazel/bazelrc").read_text()
    lines = [
        line.replace("=/usr/share/bazel", f"={final_root}/usr/share/bazel")
        for line in debian_rc.splitlines()
        if not line.startswith("try-import")
    ]
    for name, version in STUB_MODULES.items():
        stub = staging_root / "stubs" / name
        stub.mkdir(parents=True)
        (stub / "MODULE.bazel").write_text(f'module(name = "{name}", version = "{version}")\n')
        (stub / "BUILD.bazel").write_text(STUB_BUILD_FILES.get(name, ""))
        lines.append(f"common --override_module={name}={final_root}/stubs/{name}")
    lines += [
        "common --noenable_workspace",
        # Debian's rc keeps sandboxes around for debugging; they fill the disk.
        "build --nosandbox_debug",
    ]
    (staging_root / "bazelrc").write_text("\n".join(lines) + "\n")
