"""Building extensions against torch_sim: the same builder as torch_cuda's
(torch_core.cpp_extension.DeviceExtensionBuilder), for the "sim" device.

    torch_sim.cpp_extension.load_inline("my_ops", cpp_sources)   # JIT
    setup(ext_modules=[torch_sim.cpp_extension.NewDeviceCppExtension("my_ops", ["my_ops.cpp"])],
          cmdclass={"build_ext": torch_core.setuptools_build.BuildExtension})

An extension's kernels (``#include "torch_core/csrc/extension/host_kernel.h"``,
``torch_core::extension::host_kernel(iter, functor)``) run on the simulated device's host
engine, in stream order; its operators register for PrivateUse1 with TORCH_LIBRARY_IMPL.
"""

from __future__ import annotations

from pathlib import Path

import _SIMC
import torch_sim
from torch_core import cpp_extension as _core


def toolchain() -> _core.DeviceToolchain:
    """torch_sim's part of a build: its include tree, and _SIMC to link (torch_core's
    engine the kernels queue on); device sources are host code."""
    return _core.DeviceToolchain(
        torch_sim.NAME,
        "simulated",
        (str(Path(torch_sim.__file__).parent / "include"),),
        backend_libraries=(str(Path(_SIMC.__file__).resolve()),),
    )


_builder = _core.DeviceExtensionBuilder(toolchain)

include_paths = _builder.include_paths
NewDeviceCppExtension = _builder.NewDeviceCppExtension
load = _builder.load
load_inline = _builder.load_inline

__all__ = ["NewDeviceCppExtension", "include_paths", "load", "load_inline", "toolchain"]
