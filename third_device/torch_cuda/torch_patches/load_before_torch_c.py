"""Ledger entry: load the backend library before torch._C initialises.

What: _torch_cuda_activate (from a .pth) puts a one-shot finder for ``torch._C`` on
    ``sys.meta_path``; the backend library (_CUDAC's .so) is loaded with RTLD_GLOBAL
    just before ``PyInit__C`` runs. Nothing in torch is modified.
Why: torch._C's module init asks ``at::detail::getCUDAHooks()`` for ``_has_magma``; the
    hooks are created once (``std::call_once``) from ``at::CUDAHooksRegistry``, so a
    registry entry added after ``import torch`` is ignored and ATen keeps the stub
    ("Cannot initialize CUDA without ATen_cuda library").
Upstream: let a backend replace the CUDA hooks after init (a ``RegisterCUDAHooksInterface``
    like ``at::RegisterPrivateUse1HooksInterface``), or read ``_has_magma`` lazily in
    torch/csrc/Module.cpp; RFC-0045 (torch_cuda out of core) removes it altogether.
"""

from __future__ import annotations

from types import ModuleType

from torch_cuda.torch_patches._pinned import check_torch_version, probe

NAME = "load_before_torch_c"
WHAT = "loads the backend library (RTLD_GLOBAL) from a torch._C import hook, before PyInit__C"
WHY = "the CUDA hooks are read once during torch._C's init and frozen (std::call_once)"
UPSTREAM = "a RegisterCUDAHooksInterface / lazy torch._C._has_magma (or RFC-0045 itself)"


def check(torch_version: str | None, torch_C: ModuleType) -> None:
    check_torch_version(torch_version, entry=NAME)
    # The attribute whose computation freezes the hooks.
    probe(
        NAME,
        hasattr(torch_C, "_has_magma"),
        "torch._C._has_magma set by torch._C's init",
        "no torch._C._has_magma",
    )
