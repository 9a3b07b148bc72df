"""Ledger entry: gloo with CUDA tensors.

What: when a process group registers gloo's backend for the CUDA device (what
    ``init_process_group("gloo")`` does for "cpu" and "cuda"), torch_cuda registers
    ``_CUDAC._host_staging_backend(gloo)`` instead, under BackendType.CUSTOM (a
    ProcessGroup keeps one backend per type): every collective and send/recv of CUDA
    tensors runs on pinned host copies (torch_core/csrc/distributed/host_staging_backend.h),
    as stock's CUDA build of gloo does; calls without tensors go to gloo unchanged.
Why: the CPU wheel's ProcessGroupGloo looks its CUDA allreduce up in
    GlooAllreduceRegistry, which only libtorch_cuda fills: a CUDA allreduce, and every
    reduce_scatter (built on allreduce), enqueue a null work and kill the process with
    SIGSEGV. Registering into that registry needs gloo's headers, which the wheel lacks.
    The other collectives the wheel's gloo ran on device tensors itself: on an H200 the
    FSDP2 step then crashed with SIGSEGV.
Upstream: ProcessGroupGloo staging device tensors through host memory for any device
    type with no registered device allreduce (or at least raising, not crashing).
"""

from __future__ import annotations

from types import ModuleType

from torch_cuda.torch_patches._after_import import run_after_import
from torch_cuda.torch_patches._pinned import check_torch_version, probe, torch_source

NAME = "gloo_device_staging"
WHAT = (
    "ProcessGroup._register_backend wraps gloo's backend for the CUDA device in "
    "_CUDAC's host-staging backend (every collective and send/recv via pinned host copies)"
)
WHY = (
    "the CPU wheel's gloo finds its CUDA allreduce in a registry only libtorch_cuda fills: "
    "CUDA allreduce and reduce_scatter crash with SIGSEGV"
)
UPSTREAM = "ProcessGroupGloo staging device tensors through host memory for any device type"

# The call in distributed_c10d._new_process_group_helper that the wrapper intercepts.
_REGISTER_LINE = "pg._register_backend(torch.device(device), backend_type, backend_class)"


def check(torch_version: str | None, torch_C: ModuleType) -> None:
    check_torch_version(torch_version, entry=NAME)
    text = torch_source(torch_C, "distributed", "distributed_c10d.py")
    probe(
        NAME,
        _REGISTER_LINE in text,
        f"torch/distributed/distributed_c10d.py registering backends by `{_REGISTER_LINE}`",
        "another registration",
    )


def _patch_register_backend(C: ModuleType) -> None:
    import torch
    from torch._C._distributed_c10d import ProcessGroup

    stock_register = ProcessGroup._register_backend
    gloo, custom = ProcessGroup.BackendType.GLOO, ProcessGroup.BackendType.CUSTOM

    def _register_backend(
        self: ProcessGroup, device: torch.device, backend_type: object, backend: object = None
    ) -> None:
        if backend is not None and backend_type == gloo and torch.device(device).type == "cuda":
            backend, backend_type = C._host_staging_backend(backend), custom
        stock_register(self, device, backend_type, backend)

    _register_backend.__doc__ = stock_register.__doc__
    _register_backend.__wrapped__ = stock_register
    ProcessGroup._register_backend = _register_backend


def apply(C: ModuleType) -> None:
    # torch._C._distributed_c10d is made by torch.distributed's import (_c10d_init).
    run_after_import("torch.distributed", lambda _module: _patch_register_backend(C))
