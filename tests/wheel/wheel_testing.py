"""What the wheel tests share: read a built wheel, check its RECORD and its ELF, install it.

A wheel is checked as pip and the dynamic linker will see it: its METADATA and RECORD from
the archive, `readelf` on the extension module it carries, and an installation into a
fresh venv made by `python -m venv` and the pinned pip with --no-index (nothing is
downloaded), with the pinned torch (and cuBLAS) laid out in site-packages as their own
wheels would be, by symlinks to the unpacked wheels Bazel already has. The venv's
interpreters run with a clean environment: no PYTHONPATH, no sitecustomize, no
LD_LIBRARY_PATH.
"""

from __future__ import annotations

import base64
import csv
import email.parser
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterable, Mapping
from email.message import Message
from pathlib import Path

# Every entry of a reproducible wheel carries this date (toolchains/python/wheelmaker.py).
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
# Files of an unpacked wheel's Bazel repository that are not the wheel's.
REPOSITORY_FILES = {"BUILD.bazel", "REPO.bazel", "WORKSPACE", "WORKSPACE.bazel"}


def tail(text: str, lines: int = 60) -> str:
    return "\n".join(text.splitlines()[-lines:])


class Wheel:
    """A .whl as pip reads it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with zipfile.ZipFile(path) as archive:
            self.infos = archive.infolist()
            self.files = {info.filename: archive.read(info) for info in self.infos}
        distinfos = {name.split("/")[0] for name in self.files if ".dist-info/" in name}
        if len(distinfos) != 1:
            raise AssertionError(f"{path.name}: expected one .dist-info, found {distinfos}")
        self.distinfo = distinfos.pop()

    def metadata(self) -> Message:
        return email.parser.Parser().parsestr(self.files[f"{self.distinfo}/METADATA"].decode())

    def requires(self) -> list[str]:
        return self.metadata().get_all("Requires-Dist") or []

    def tags(self) -> list[str]:
        wheel = email.parser.Parser().parsestr(self.files[f"{self.distinfo}/WHEEL"].decode())
        return wheel.get_all("Tag") or []

    def record_problems(self) -> list[str]:
        """What is wrong with RECORD: missing, unlisted or altered files (PEP 376/427)."""
        record = f"{self.distinfo}/RECORD"
        return record_problems(
            self.files[record].decode(),
            {name: data for name, data in self.files.items() if not name.endswith("/")},
            record,
        )

    def bad_dates(self) -> list[str]:
        return [f"{i.filename}: {i.date_time}" for i in self.infos if i.date_time != ZIP_DATE]


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def record_problems(record: str, files: Mapping[str, bytes | None], record_name: str) -> list[str]:
    """RECORD rows against `files` (name -> content, None: present, not to be hashed)."""
    problems = []
    listed = set()
    for row in csv.reader(io.StringIO(record)):
        if not row:
            continue
        name, digest, size = row
        listed.add(name)
        if name == record_name:
            continue
        if name not in files:
            problems.append(f"{name}: in RECORD, not in the wheel")
        elif not digest:
            problems.append(f"{name}: no hash in RECORD")
        elif (data := files[name]) is not None and (
            record_hash(data) != digest or str(len(data)) != size
        ):
            problems.append(f"{name}: RECORD says {digest} ({size} bytes), the file is "
                            f"{record_hash(data)} ({len(data)} bytes)")
    problems += [f"{name}: in the wheel, not in RECORD" for name in sorted(set(files) - listed)]
    return problems


def readelf(*args: str | Path) -> str:
    tool = shutil.which("readelf")
    if tool is None:
        raise AssertionError("readelf (binutils) is not on PATH: it reads _CUDAC.so's ELF")
    return subprocess.run([tool, *map(str, args)], capture_output=True, text=True,
                          check=True).stdout


def dynamic_section(library: Path) -> tuple[list[str], list[str]]:
    """(NEEDED sonames, RUNPATH entries) of `library`."""
    text = readelf("-d", "--wide", library)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", text)
    runpath = re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^\]]*)\]", text)
    return needed, [entry for paths in runpath for entry in paths.split(":")]


def glibc_versions(library: Path) -> list[tuple[int, int]]:
    """The GLIBC_x.y symbol versions `library` needs."""
    text = readelf("-V", "--wide", library)
    return sorted({(int(a), int(b)) for a, b in re.findall(r"Name: GLIBC_(\d+)\.(\d+)", text)})


def manylinux_glibc(platform: str) -> tuple[int, int]:
    match = re.fullmatch(r"manylinux_(\d+)_(\d+)_x86_64", platform)
    if match is None:
        raise AssertionError(f"{platform}: not a PEP 600 manylinux_x_y_x86_64 tag")
    return int(match.group(1)), int(match.group(2))


def unpacked_wheel_root(file_in_it: str, levels: int) -> Path:
    """The root of an unpacked wheel in the runfiles, from a file `levels` deep in it."""
    return Path(os.path.abspath(file_in_it)).parents[levels - 1]


class Venv:
    """A fresh venv with pip; its interpreter runs with a clean environment.

    pip is the pinned one, linked in from where Bazel unpacked it (`pip_root`, holding
    pip/ and its dist-info): @host_python is Debian's, whose ensurepip comes in a package of
    its own.
    """

    def __init__(self, root: Path, scratch: Path, pip_root: Path) -> None:
        self.root = root
        self.scratch = scratch
        self.python = root / "bin" / "python"
        scratch.mkdir(parents=True, exist_ok=True)
        created = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)],
                                 env=self.env(), capture_output=True, text=True, check=False)
        if created.returncode != 0:
            raise AssertionError(f"python -m venv failed:\n{created.stdout}{created.stderr}")
        self.site = Path(self.run("import sysconfig; print(sysconfig.get_paths()['purelib'])")
                         .stdout.strip())
        pip = [entry.name for entry in pip_root.iterdir() if entry.name.split("-")[0] == "pip"]
        self.link_unpacked_wheel(pip_root, only=pip)

    def env(self, **extra: str) -> dict[str, str]:
        # Nothing of the test's own environment that could reach torch or torch_cuda
        # (PYTHONPATH, the runfiles) or pip's configuration (its index); the C++ compiler
        # the test names (CXX, made absolute: the venv's processes run elsewhere).
        compiler = {"CXX": os.path.abspath(os.environ["CXX"])} if "CXX" in os.environ else {}
        return {
            **compiler,
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.scratch),
            "TMPDIR": str(self.scratch),
            "LANG": "C.UTF-8",
            "PYTHONNOUSERSITE": "1",
            "PIP_CONFIG_FILE": os.devnull,
            "PIP_NO_INPUT": "1",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            **extra,
        }

    def run(self, code: str, *flags: str, check: bool = True,
            **env: str) -> subprocess.CompletedProcess:
        result = subprocess.run([str(self.python), *flags, "-c", code], cwd=self.scratch,
                                env=self.env(**env), capture_output=True, text=True,
                                check=False)
        if check and result.returncode != 0:
            raise AssertionError(f"the venv's python failed on {code!r}:\n{tail(result.stderr)}")
        return result

    def pip_install(self, wheels: Iterable[Path]) -> None:
        result = subprocess.run(
            [str(self.python), "-m", "pip", "install", "--no-index", "--no-deps",
             "--no-cache-dir", *map(str, wheels)],
            cwd=self.scratch, env=self.env(), capture_output=True, text=True, check=False,
        )
        if result.returncode != 0:
            raise AssertionError(f"pip install --no-index --no-deps failed:\n"
                                 f"{result.stdout}{result.stderr}")

    def link_unpacked_wheel(self, root: Path, only: Iterable[str] | None = None) -> None:
        """Puts an unpacked wheel's top-level entries into site-packages, as symlinks."""
        for entry in sorted(root.iterdir()):
            if entry.name in REPOSITORY_FILES or (only is not None and entry.name not in only):
                continue
            (self.site / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())

    def installed_record_problems(self, distribution: str) -> list[str]:
        distinfo = next(self.site.glob(f"{distribution}-*.dist-info"), None)
        if distinfo is None:
            return [f"no {distribution}-*.dist-info in {self.site}"]
        record = (distinfo / "RECORD").read_text()
        files: dict[str, bytes | None] = {}
        for row in csv.reader(io.StringIO(record)):
            if row and (self.site / row[0]).is_file():
                # pip lists the .pyc it compiled without a hash.
                files[row[0]] = None if not row[1] else (self.site / row[0]).read_bytes()
        problems = record_problems(record, files, f"{distinfo.name}/RECORD")
        return [p for p in problems if not (p.endswith("no hash in RECORD") and ".pyc:" in p)]

    def ldd(self, library: Path) -> dict[str, str]:
        """soname -> the path the dynamic linker resolves it to ("not found" if none)."""
        tool = shutil.which("ldd")
        if tool is None:
            raise AssertionError("ldd is not on PATH")
        text = subprocess.run([tool, str(library)], env=self.env(), capture_output=True,
                              text=True, check=True).stdout
        found = {}
        for line in text.splitlines():
            if match := re.match(r"\s*(\S+) => (not found|\S+)", line):
                found[match.group(1)] = match.group(2)
            elif match := re.match(r"\s*(/\S+) \(0x", line):  # the dynamic linker itself
                found[os.path.basename(match.group(1))] = match.group(1)
        return found

    def probe(self) -> dict[str, object]:
        """Imports torch as user code would and says where everything came from."""
        result = self.run(PROBE)
        return json.loads(result.stdout.strip().splitlines()[-1])


# Run by the venv's python: plain user code (`import torch`), then where things came from
# and whether the installed distributions' Requires-Dist are met by what is installed.
PROBE = """
import importlib.metadata as md, json, sys
import torch
from pip._vendor.packaging.requirements import Requirement

def requirements(dist):
    out = []
    for line in md.requires(dist) or []:
        req = Requirement(line)
        try:
            found = md.version(req.name)
        except md.PackageNotFoundError:
            found = None
        met = found is not None and req.specifier.contains(found, prereleases=True)
        out.append([line, found, met])
    return out

import _CUDAC, _torch_cuda_activate, torch_core, torch_cuda
print(json.dumps({
    "torch": torch.__file__, "torch_cuda": torch_cuda.__file__, "_CUDAC": _CUDAC.__file__,
    "torch_core": torch_core.__file__, "activate": _torch_cuda_activate.__file__,
    "state": _torch_cuda_activate.state(), "is_available": torch.cuda.is_available(),
    "version_cuda": torch.version.cuda, "device_count": torch.cuda.device_count(),
    "sitecustomize": getattr(sys.modules.get("sitecustomize"), "__file__", None),
    "requirements": {d: requirements(d) for d in ("torch_cuda", "torch_core")},
}))
"""
