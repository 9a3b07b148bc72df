"""Ledger entry: torch.distributed's NCCL backend.

What: torch.distributed's NCCL names point at _CUDAC's ProcessGroupNCCL (torch_core's
    collective process group over NCCL on a GPU, over the simulated communicator in the
    simulated variant; _CUDAC binds it once torch.distributed is imported):
    ``distributed_c10d.ProcessGroupNCCL`` (what ``init_process_group("nccl")``
    constructs), ``_NCCL_AVAILABLE`` (``dist.is_nccl_available()``), the NCCL default
    timeout (10 minutes), ``torch.distributed.ProcessGroupNCCL`` and
    ``torch._C._distributed_c10d.ProcessGroupNCCL`` for code that imports it; and
    ``torch._C._nccl_version`` / ``_nccl_version_suffix`` (``torch.cuda.nccl.version()``).
Why: the CPU wheel is built without NCCL: its distributed_c10d found no ProcessGroupNCCL
    in torch._C at import, so ``init_process_group("nccl")`` raises "Distributed package
    doesn't have NCCL built in", and "nccl" is a built-in name that
    ``Backend.register_backend`` refuses to take.
Upstream: c10d taking a device's collective backend class from the device's extension
    (as it takes custom backends), instead of from torch._C at import.
"""

from __future__ import annotations

import datetime
from types import ModuleType

from torch_cuda.torch_patches._after_import import run_after_import
from torch_cuda.torch_patches._pinned import check_torch_version, probe, torch_source

NAME = "nccl_process_group"
WHAT = (
    "torch.distributed's ProcessGroupNCCL, is_nccl_available(), NCCL default timeout and "
    "torch.cuda.nccl.version() point at _CUDAC's (NCCL, or the simulated communicator)"
)
WHY = (
    "the CPU wheel has no NCCL: init_process_group('nccl') raises \"Distributed package "
    "doesn't have NCCL built in\", and register_backend refuses the built-in name"
)
UPSTREAM = "c10d taking a device's collective backend class from the device's extension"

# NCCL's default, as torch._C._distributed_c10d._DEFAULT_PG_NCCL_TIMEOUT in a CUDA build.
DEFAULT_TIMEOUT = datetime.timedelta(minutes=10)

# What distributed_c10d must still do for the entry to work.
_PROBES = (
    "from torch._C._distributed_c10d import ProcessGroupNCCL",
    "backend_class = ProcessGroupNCCL(",
    "return _NCCL_AVAILABLE",
    "return default_pg_nccl_timeout",
)


def check(torch_version: str | None, torch_C: ModuleType) -> None:
    check_torch_version(torch_version, entry=NAME)
    text = torch_source(torch_C, "distributed", "distributed_c10d.py")
    for line in _PROBES:
        where = f"torch/distributed/distributed_c10d.py with `{line}`"
        probe(NAME, line in text, where, "another version")


def _point_torch_at(process_group: type) -> None:
    import torch.distributed as dist
    from torch._C import _distributed_c10d
    from torch.distributed import constants, distributed_c10d

    process_group.__module__ = "torch.distributed.distributed_c10d"
    distributed_c10d.ProcessGroupNCCL = process_group
    distributed_c10d._NCCL_AVAILABLE = True
    if "ProcessGroupNCCL" not in distributed_c10d.__all__:
        distributed_c10d.__all__.append("ProcessGroupNCCL")
    distributed_c10d.default_pg_nccl_timeout = DEFAULT_TIMEOUT
    constants.default_pg_nccl_timeout = DEFAULT_TIMEOUT
    dist.ProcessGroupNCCL = process_group
    _distributed_c10d.ProcessGroupNCCL = process_group


def apply(torch_C: ModuleType, C: ModuleType) -> None:
    # torch.cuda.nccl.version(), which c10d's logger asks when a collective raises.
    torch_C._nccl_version = C._nccl_version
    torch_C._nccl_version_suffix = C._nccl_version_suffix
    # The class derives from c10d's Backend, which torch.distributed's import makes.
    run_after_import(
        "torch.distributed", lambda _module: _point_torch_at(C._nccl_process_group_class())
    )
