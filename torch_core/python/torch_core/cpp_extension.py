"""Building C++ and device-code extensions against a torch_core backend.

The backend-generic core of RFC-0045's ``NewDeviceCppExtension``: what a backend knows
(its include tree, whether its device sources compile for the device or, on a simulated
device, for the host, its device compiler and flags) is a ``DeviceToolchain``; everything
else is written once here and shared by every backend's builder (torch_cuda.cpp_extension):

- ``build_library``: compile and link one shared library of operators (``TORCH_LIBRARY``),
  against torch's libraries and, never a copy of, the backend's own (a copy in the
  extension would be a second engine, allocator and stream registry): linked by file where
  the backend names them, else resolved against the library the backend loaded
  RTLD_GLOBAL (torch_cuda's _CUDAC);
- ``load`` / ``load_inline``: the JIT builds, cached by content under
  ``TORCH_EXTENSIONS_DIR`` (``~/.cache/torch_extensions``) as stock's are, then loaded
  with ``torch.ops.load_library``, as stock's ``is_python_module=False``;
- ``DeviceExtensionBuilder``: all of it for one backend (its ``NewDeviceCppExtension``
  for setuptools, with torch_core.setuptools_build's ``BuildExtension``, and its ``load``
  and ``load_inline``); torch_cuda's and torch_sim's builders are instances.

A failed build raises with the compiler's command and output and leaves no library behind
(the output is written beside its destination and renamed into place).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

DEVICE_SOURCE_SUFFIXES = (".cu",)


@dataclass(frozen=True)
class DeviceToolchain:
    """A backend's part of an extension build."""

    # The device type the extension's operators run on ("cuda"), for messages and paths.
    device_type: str
    # The variant, part of the JIT cache key (torch_cuda: "cudart", "simulated").
    variant: str
    # The backend's include tree(s): its extension API and what that includes.
    include_dirs: tuple[str, ...]
    # The command compiling a device source (``nvcc`` and its flags) to an object with
    # ``-c SRC -o OBJ`` appended; empty: device sources compile with the host compiler as
    # C++ (a simulated device, whose kernels run on the host engine).
    device_compiler: tuple[str, ...] = ()
    # Options the device compiler needs for the host compiler's part (e.g. -Xcompiler).
    device_host_flag: str = "-Xcompiler"
    # Linker inputs the device code needs (e.g. the device runtime).
    device_link_flags: tuple[str, ...] = ()
    # The backend's shared libraries the extension links against, where the backend has not
    # loaded them RTLD_GLOBAL (torch_cuda's _CUDAC is; torch_sim's _SIMC is not).
    backend_libraries: tuple[str, ...] = ()


def host_compiler() -> str:
    """The C++ compiler: $CXX, else ``c++``."""
    return os.environ.get("CXX", "c++")


def torch_include_dirs() -> list[str]:
    """torch's C++ include directories (torch.utils.cpp_extension.include_paths())."""
    import torch

    include = Path(torch.__file__).parent / "include"
    return [str(include), str(include / "torch" / "csrc" / "api" / "include")]


def torch_library_dir() -> str:
    import torch

    return str(Path(torch.__file__).parent / "lib")


def _abi_flag() -> str:
    import torch

    return f"-D_GLIBCXX_USE_CXX11_ABI={int(torch.compiled_with_cxx11_abi())}"


def _flags_for(flags: Sequence[str] | Mapping[str, Sequence[str]] | None, key: str) -> list[str]:
    """Stock's extra_compile_args: a list for every compiler, or {"cxx": [...], "nvcc": [...]}."""
    if flags is None:
        return []
    if isinstance(flags, Mapping):
        return list(flags.get(key, ()))
    return list(flags)


def _link_flags_for(libraries: Sequence[str]) -> list[str]:
    """Links each library by file name, found through the runpath where it is installed
    (the dynamic loader then reuses the copy already loaded)."""
    flags: list[str] = []
    for library in libraries:
        path = Path(library)
        flags += [f"-L{path.parent}", f"-l:{path.name}", f"-Wl,-rpath,{path.parent}"]
    return flags


@dataclass(frozen=True)
class BuildPlan:
    """The commands of one extension build, in order, and the library they produce."""

    compiles: tuple[tuple[str, ...], ...]
    link: tuple[str, ...]
    output: Path


def plan_build(
    toolchain: DeviceToolchain,
    name: str,
    sources: Sequence[str | os.PathLike[str]],
    build_dir: Path,
    output: Path,
    *,
    extra_cflags: Sequence[str] | Mapping[str, Sequence[str]] | None = None,
    extra_cuda_cflags: Sequence[str] = (),
    extra_ldflags: Sequence[str] = (),
    extra_include_paths: Sequence[str] = (),
) -> BuildPlan:
    """The compile and link commands for `sources` (device sources by their suffix)."""
    if not sources:
        raise ValueError(f"extension {name!r}: no sources to build")
    includes = [
        f"-I{d}" for d in (*extra_include_paths, *toolchain.include_dirs, *torch_include_dirs())
    ]
    common = [
        "-std=c++17",
        _abi_flag(),
        f"-DTORCH_EXTENSION_NAME={name}",
        *includes,
    ]
    host_flags = ["-fPIC", "-O2", *_flags_for(extra_cflags, "cxx")]
    device_flags = [*_flags_for(extra_cflags, "nvcc"), *extra_cuda_cflags]
    compiles: list[tuple[str, ...]] = []
    objects: list[str] = []
    for index, source in enumerate(sources):
        source = Path(source)
        obj = build_dir / f"{index}_{source.stem}.o"
        objects.append(str(obj))
        is_device = source.suffix in DEVICE_SOURCE_SUFFIXES
        if is_device and toolchain.device_compiler:
            host = [part for flag in host_flags for part in (toolchain.device_host_flag, flag)]
            command = [*toolchain.device_compiler, *common, *host, *device_flags]
        elif is_device:
            # A simulated device: the functors run on the host engine.
            command = [host_compiler(), "-x", "c++", *common, *host_flags]
        else:
            command = [host_compiler(), *common, *host_flags]
        compiles.append((*command, "-c", str(source), "-o", str(obj)))
    library_dir = torch_library_dir()
    link = (
        host_compiler(),
        "-shared",
        *objects,
        f"-L{library_dir}",
        "-lc10",
        "-ltorch_cpu",
        f"-Wl,-rpath,{library_dir}",
        *_link_flags_for(toolchain.backend_libraries),
        *toolchain.device_link_flags,
        *extra_ldflags,
        "-o",
        str(output),
    )
    return BuildPlan(tuple(compiles), link, output)


class ExtensionBuildError(RuntimeError):
    """A compiler or linker command of an extension build failed."""


def _run(command: Sequence[str], name: str, verbose: bool) -> None:
    if verbose:
        print(shlex.join(command), flush=True)
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise ExtensionBuildError(
            f"Error building extension '{name}': {shlex.join(command)} exited with "
            f"{result.returncode}:\n{result.stdout}{result.stderr}"
        )


def build_library(
    toolchain: DeviceToolchain,
    name: str,
    sources: Sequence[str | os.PathLike[str]],
    output: Path,
    *,
    verbose: bool = False,
    **flags: Sequence[str] | Mapping[str, Sequence[str]] | None,
) -> Path:
    """Compiles and links `sources` into the shared library `output`."""
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"{name}-", dir=output.parent) as scratch:
        partial = Path(scratch) / output.name
        plan = plan_build(toolchain, name, sources, Path(scratch), partial, **flags)  # type: ignore[arg-type]
        for command in (*plan.compiles, plan.link):
            _run(command, name, verbose)
        os.replace(partial, output)
    return output


def extensions_dir() -> Path:
    """Where JIT builds are kept: $TORCH_EXTENSIONS_DIR, else ~/.cache/torch_extensions."""
    configured = os.environ.get("TORCH_EXTENSIONS_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "torch_extensions"


def _build_directory(toolchain: DeviceToolchain, name: str, build_directory: str | None) -> Path:
    """`build_directory`, else the extension's own under extensions_dir() per device and variant."""
    if build_directory:
        return Path(build_directory)
    return extensions_dir() / f"{toolchain.device_type}_{toolchain.variant}" / name


def _build_key(toolchain: DeviceToolchain, sources: Sequence[Path], flags: object) -> str:
    """What a cached build must match: the sources, the flags, the compilers, the torch
    and the backend's headers (an upgraded backend in the same place rebuilds)."""
    import torch

    digest = hashlib.sha256(repr((toolchain, flags, host_compiler(), torch.__version__)).encode())
    for source in sources:
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    for include_dir in map(Path, toolchain.include_dirs):
        for header in sorted(p for p in include_dir.rglob("*") if p.is_file()):
            digest.update(str(header.relative_to(include_dir)).encode())
            digest.update(header.read_bytes())
    return digest.hexdigest()[:16]


def load(
    toolchain: DeviceToolchain,
    name: str,
    sources: Sequence[str | os.PathLike[str]],
    *,
    build_directory: str | None = None,
    verbose: bool = False,
    **flags: Sequence[str] | Mapping[str, Sequence[str]] | None,
) -> str:
    """Builds `sources` (unless an identical build is cached), loads the library's
    operators into torch.ops and returns its path."""
    import torch

    paths = [Path(source).resolve() for source in sources]
    key = _build_key(toolchain, paths, sorted(flags.items()))
    library = _build_directory(toolchain, name, build_directory) / f"{name}_{key}.so"
    if not library.exists():
        build_library(toolchain, name, paths, library, verbose=verbose, **flags)
    elif verbose:
        print(f"extension {name!r}: using the cached build {library}", flush=True)
    torch.ops.load_library(str(library))
    return str(library)


def _source_text(sources: str | Sequence[str] | None) -> str:
    if sources is None:
        return ""
    return sources if isinstance(sources, str) else "\n".join(sources)


def load_inline(
    toolchain: DeviceToolchain,
    name: str,
    cpp_sources: str | Sequence[str],
    cuda_sources: str | Sequence[str] | None = None,
    *,
    build_directory: str | None = None,
    verbose: bool = False,
    **flags: Sequence[str] | Mapping[str, Sequence[str]] | None,
) -> str:
    """load() of sources given as strings: C++ in one file, device code in another."""
    base = _build_directory(toolchain, name, build_directory)
    base.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    for text, filename in (
        (_source_text(cpp_sources), "main.cpp"),
        (_source_text(cuda_sources), f"{toolchain.device_type}.cu"),
    ):
        if not text:
            continue
        path = base / filename
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        files.append(path)
    return load(toolchain, name, files, build_directory=str(base), verbose=verbose, **flags)


def _jit_flags(
    extra_cflags: Sequence[str] | None,
    extra_cuda_cflags: Sequence[str],
    extra_ldflags: Sequence[str],
    extra_include_paths: Sequence[str],
) -> dict[str, Sequence[str] | Mapping[str, Sequence[str]]]:
    """A JIT build's flags as plan_build takes them: as in stock's JIT builds, extra_cflags
    go to the host compiler only."""
    return {
        "extra_cflags": {"cxx": list(extra_cflags or ())},
        "extra_cuda_cflags": extra_cuda_cflags,
        "extra_ldflags": extra_ldflags,
        "extra_include_paths": extra_include_paths,
    }


class DeviceExtensionBuilder:
    """A backend's extension builder, the same class for every backend: the RFC's
    NewDeviceCppExtension (setuptools) and the JIT load/load_inline over the toolchain that
    `toolchain` describes (called when a build starts: it may look for a device compiler)."""

    def __init__(self, toolchain: Callable[[], DeviceToolchain]) -> None:
        self._toolchain = toolchain

    def include_paths(self) -> list[str]:
        """The backend's include tree, then torch's include directories."""
        return [*self._toolchain().include_dirs, *torch_include_dirs()]

    def NewDeviceCppExtension(
        self,
        name: str,
        sources: Sequence[str],
        *,
        extra_compile_args: Sequence[str] | Mapping[str, Sequence[str]] | None = None,
        **kwargs: object,
    ) -> object:
        """A setuptools Extension of the backend's operators; build it with
        torch_core.setuptools_build.BuildExtension (``cmdclass={"build_ext": ...}``)."""
        from torch_core.setuptools_build import DeviceExtension

        return DeviceExtension(
            name, sources, self._toolchain(), extra_compile_args=extra_compile_args, **kwargs
        )

    def load(
        self,
        name: str,
        sources: Sequence[str | os.PathLike[str]],
        *,
        extra_cflags: Sequence[str] | None = None,
        extra_cuda_cflags: Sequence[str] = (),
        extra_ldflags: Sequence[str] = (),
        extra_include_paths: Sequence[str] = (),
        build_directory: str | None = None,
        verbose: bool = False,
    ) -> str:
        """Builds `sources` (cached by content) and loads their operators into torch.ops,
        as torch.utils.cpp_extension.load(..., is_python_module=False); returns the library."""
        return load(
            self._toolchain(),
            name,
            sources,
            build_directory=build_directory,
            verbose=verbose,
            **_jit_flags(extra_cflags, extra_cuda_cflags, extra_ldflags, extra_include_paths),
        )

    def load_inline(
        self,
        name: str,
        cpp_sources: str | Sequence[str],
        cuda_sources: str | Sequence[str] | None = None,
        *,
        extra_cflags: Sequence[str] | None = None,
        extra_cuda_cflags: Sequence[str] = (),
        extra_ldflags: Sequence[str] = (),
        extra_include_paths: Sequence[str] = (),
        build_directory: str | None = None,
        verbose: bool = False,
    ) -> str:
        """load() of sources given as strings (C++ in one file, device code in another)."""
        return load_inline(
            self._toolchain(),
            name,
            cpp_sources,
            cuda_sources,
            build_directory=build_directory,
            verbose=verbose,
            **_jit_flags(extra_cflags, extra_cuda_cflags, extra_ldflags, extra_include_paths),
        )
