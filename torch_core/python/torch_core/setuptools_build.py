"""The setuptools side of torch_core.cpp_extension: a backend's extensions in a setup.py.

    from torch_cuda.cpp_extension import BuildExtension, NewDeviceCppExtension
    setup(ext_modules=[NewDeviceCppExtension("my_ops", ["my_ops.cu"])],
          cmdclass={"build_ext": BuildExtension})

Each DeviceExtension is built by torch_core.cpp_extension.build_library (the commands a
JIT build runs) into the path setuptools chose; other extensions build as setuptools does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from setuptools import Extension
from setuptools.command.build_ext import build_ext

from torch_core.cpp_extension import DeviceToolchain, build_library


class DeviceExtension(Extension):
    """A setuptools Extension of operators for a backend's device."""

    def __init__(
        self,
        name: str,
        sources: Sequence[str],
        toolchain: DeviceToolchain,
        *,
        extra_compile_args: Sequence[str] | Mapping[str, Sequence[str]] | None = None,
        **kwargs: object,
    ) -> None:
        super().__init__(name, list(sources), language="c++", **kwargs)  # type: ignore[arg-type]
        self.toolchain = toolchain
        # Stock's form: one list, or {"cxx": [...], "nvcc": [...]}.
        self.device_compile_args = extra_compile_args


class BuildExtension(build_ext):
    """build_ext that builds DeviceExtensions with their backend's toolchain."""

    def build_extension(self, ext: Extension) -> None:
        if not isinstance(ext, DeviceExtension):
            super().build_extension(ext)
            return
        build_library(
            ext.toolchain,
            ext.name.rsplit(".", 1)[-1],
            ext.sources,
            Path(self.get_ext_fullpath(ext.name)),
            verbose=bool(self.verbose),
            extra_cflags=ext.device_compile_args,
            extra_ldflags=list(ext.extra_link_args or ()),
            extra_include_paths=list(ext.include_dirs or ()),
        )
