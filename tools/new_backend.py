#!/usr/bin/env python3
"""Makes a new simulated backend from torch_sim: the README's "How to add a backend", done.

    tools/new_backend.py torch_toy toy

writes `third_device/torch_toy/` (torch_sim's files with every name renamed: package,
targets, `_TOYC`, `torch.toy`, the `TORCH_TOY_FALLBACK` and `PYTORCH_TOY_ALLOC_CONF`
settings), adds copies of torch_sim's source groups to `build_variables.bzl` and its entry
to `BACKENDS` in `third_device/backends.bzl`. Nothing else changes: the contract suite
(`//tests/contract:torch_toy_<file>_test`), the conformance run, the audits and the
dependency graph pick the new backend up from that entry.

The new backend runs on PrivateUse1, as torch_sim does, so the two are never loaded into one
process; it shares torch_core's simulated runtime and so its TORCH_SIM_DEVICE_COUNT and
TORCH_SIM_MEMORY_MB settings. A vendor then replaces the simulated runtime with its own
(README, step 1). tests/new_backend/third_backend_test.py generates one in a copy of the
repository and runs its contract suite, so these steps stay true.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TEMPLATE = "torch_sim"
TEMPLATE_DEVICE = "sim"
# torch_core's simulated runtime reads these, whichever backend runs on it: kept as they are.
SHARED_SETTINGS = ("TORCH_SIM_DEVICE_COUNT", "TORCH_SIM_MEMORY_MB")


class NewBackendError(RuntimeError):
    """The backend cannot be made; the message says why and what to do."""


def renamer(name: str, device: str) -> Callable[[str], str]:
    """Text with torch_sim's names replaced by the new backend's."""
    upper = device.upper()
    literal = [
        ("torch_python_sim", f"torch_python_{device}"),
        (TEMPLATE, name),
        ("_SIMC", f"_{upper}C"),
        ("TORCH_SIM_FALLBACK", f"TORCH_{upper}_FALLBACK"),
        ("PYTORCH_SIM_ALLOC_CONF", f"PYTORCH_{upper}_ALLOC_CONF"),
    ]
    # File-name prefixes (sim_backend.h, sim_module.cpp) and the device name itself
    # ("sim", torch.sim, sim:1); `simulated` and TORCH_SIM_* are other words.
    prefix = re.compile(r"\bsim_(?=[a-z])")
    word = re.compile(r"\bsim\b")

    def rename(text: str) -> str:
        for old, new in literal:
            text = text.replace(old, new)
        return word.sub(device, prefix.sub(f"{device}_", text))

    return rename


def copy_package(root: Path, name: str, rename: Callable[[str], str]) -> list[str]:
    """Copies third_device/torch_sim to third_device/<name>, renaming paths and contents."""
    source = root / "third_device" / TEMPLATE
    written = []
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        if "__pycache__" in path.parts:
            continue
        relative = rename(str(path.relative_to(source)))
        target = root / "third_device" / name / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(rename(path.read_text()))
        written.append(f"third_device/{name}/{relative}")
    return written


# A source group of build_variables.bzl: its comment lines, its name and its paths.
GROUP = re.compile(r'((?:^#.*\n)*)^(\w+) = \[\n((?:    ".*",\n)*)\]\n', re.MULTILINE)


def template_groups(variables: str) -> list[str]:
    """The groups of build_variables.bzl that list torch_sim's files, as written there."""
    groups = []
    for match in GROUP.finditer(variables):
        paths = re.findall(r'"(.*)"', match.group(3))
        if paths and all(p.startswith(f"third_device/{TEMPLATE}/") for p in paths):
            groups.append(match.group(0))
    if not groups:
        raise NewBackendError(f"build_variables.bzl has no group of third_device/{TEMPLATE}")
    return groups


# torch_sim's entry in BACKENDS: from `backend(` to its closing `),` (4 spaces in).
ENTRY = re.compile(
    r'^    backend\(\n        name = "' + TEMPLATE + r'",\n(?:.*\n)*?^    \),\n', re.MULTILINE
)


def add_entry(backends: str, name: str, rename: Callable[[str], str]) -> str:
    match = ENTRY.search(backends)
    if match is None:
        raise NewBackendError(f"third_device/backends.bzl has no backend(name = {TEMPLATE!r})")
    comment = f"    # {name}: made from {TEMPLATE} by tools/new_backend.py.\n"
    entry = comment + rename(match.group(0))
    return backends[: match.end()] + entry + backends[match.end() :]


def leftovers(paths: list[str], root: Path) -> list[str]:
    """Lines of the new files that still name torch_sim (a rename this script missed)."""
    pattern = re.compile(r"torch_sim|_SIMC|\bsim\b|SIM_(?!DEVICE_COUNT|MEMORY_MB)")
    found = []
    for path in paths:
        for number, line in enumerate((root / path).read_text().splitlines(), 1):
            if pattern.search(line):
                found.append(f"{path}:{number}: {line.strip()}")
    return found


def make_backend(root: Path, name: str, device: str) -> list[str]:
    """Writes the backend and its two list entries; returns the files it made."""
    if not re.fullmatch(r"torch_[a-z][a-z0-9]*", name) or name.removeprefix("torch_") != device:
        raise NewBackendError(
            f"name the backend torch_<device> with a lower-case device name "
            f"(torch_toy toy), not {name!r} {device!r}"
        )
    if (root / "third_device" / name).exists():
        raise NewBackendError(f"third_device/{name} exists already: pick another name")
    rename = renamer(name, device)
    variables_path = root / "build_variables.bzl"
    backends_path = root / "third_device" / "backends.bzl"
    variables = variables_path.read_text()
    backends = add_entry(backends_path.read_text(), name, rename)
    groups = "\n".join(rename(group) for group in template_groups(variables))
    written = copy_package(root, name, rename)
    missed = leftovers(written, root)
    if missed:
        shutil.rmtree(root / "third_device" / name)
        raise NewBackendError(
            "these lines still name torch_sim; teach renamer() the name:\n  " + "\n  ".join(missed)
        )
    variables_path.write_text(f"{variables}\n# {name}: made from {TEMPLATE}.\n{groups}")
    backends_path.write_text(backends)
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name", help="the backend's Python package, torch_<device>")
    parser.add_argument("device", help="the device name its tensors get (toy)")
    parser.add_argument("--root", type=Path, default=REPO, help="the repository to write into")
    args = parser.parse_args()
    try:
        written = make_backend(args.root, args.name, args.device)
    except NewBackendError as error:
        print(f"new_backend: {error}", file=sys.stderr)
        return 1
    print(f"new_backend: wrote {len(written)} files under third_device/{args.name}/,")
    print("  its groups in build_variables.bzl and its entry in third_device/backends.bzl;")
    print(f"  run: tools/bazel test //tests/contract:all  ({args.name}_<file>_test)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
