"""The two steps around torch._C's initialisation (called by _torch_cuda_activate's hook).

before_torch_c_init: refuse a torch other than the pinned one, then load _CUDAC's shared
library with RTLD_GLOBAL: its static initialisers register the CUDA hooks, the CUDA
operators and the fallback, while torch._C's init has not yet asked for the hooks. The
module's Python init (PyInit__CUDAC) is not run here: it needs torch._C.

after_torch_c_init: import _CUDAC (the same library: the module init creates the backend
and binds its functions) and apply the torch_patches ledger (torch._C names, versions,
storage creation), all before torch/__init__.py goes on to import torch.cuda.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import sys
from types import ModuleType

from torch_cuda import torch_patches

_library: ctypes.CDLL | None = None

# torch's own libraries _CUDAC.so links against, in dependency order. torch/__init__.py
# has loaded only some of them when torch._C is about to initialise; loading them from
# the imported torch's lib/ (RTLD_GLOBAL, as torch._C's own load would) lets the dynamic
# linker resolve _CUDAC.so's DT_NEEDED entries by soname to exactly that torch, wherever
# _CUDAC.so's RUNPATH points (installed from a wheel: $ORIGIN/torch/lib, see wheel.bzl;
# in Bazel's runfiles: its _solib directories).
_TORCH_LIBRARIES = ("libc10.so", "libtorch_cpu.so", "libtorch.so", "libtorch_python.so")


def library_path() -> str:
    spec = importlib.util.find_spec("_CUDAC")
    if spec is None or not spec.origin:
        raise ImportError("torch_cuda: its extension module _CUDAC is not installed beside it")
    return spec.origin


def before_torch_c_init() -> None:
    global _library
    torch = sys.modules["torch"]  # torch/__init__.py, part-way: __version__ is set
    torch_patches.check_torch_version(getattr(torch, "__version__", None))
    torch_patches.before_torch_c_init()
    if _library is None:
        torch_lib = os.path.join(os.path.dirname(torch.__file__), "lib")
        for name in _TORCH_LIBRARIES:
            path = os.path.join(torch_lib, name)
            if os.path.exists(path):
                ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
        _library = ctypes.CDLL(library_path(), mode=os.RTLD_NOW | os.RTLD_GLOBAL)


def after_torch_c_init(torch_C: ModuleType) -> None:
    import _CUDAC

    torch_patches.after_torch_c_init(torch_C, _CUDAC)
