"""torch_patches: the ledger of what stock torch needs changed when torch_cuda loads.

One module per entry, each with NAME, WHAT (the change), WHY, UPSTREAM (the change in
PyTorch that would remove it) and ``check()``: the torch version is the pinned one and a
probe of the specific thing the entry relies on still holds (a clear error naming both
versions otherwise). Tests: tests/torch_patches/. The README's table is generated from
this ledger (``markdown_table()``; tests/torch_patches writes it).

Nothing here imports torch at module level: the ledger runs inside torch's import.
"""

from __future__ import annotations

import sys
from types import ModuleType

from torch_cuda.torch_patches import (
    cuda_storage,
    cudnn_module,
    gloo_device_staging,
    legacy_cuda_tensor_types,
    load_before_torch_c,
    nccl_process_group,
    new_device_cpp_extension,
    raw_stream_for_dynamo,
    torch_c_names,
    version_cuda,
)
from torch_cuda.torch_patches._pinned import (
    PINNED_TORCH_VERSION,
    PatchNoLongerAppliesError,
    TorchVersionMismatchError,
    check_torch_version,
)

ENTRIES = (
    load_before_torch_c,
    torch_c_names,
    raw_stream_for_dynamo,
    cuda_storage,
    version_cuda,
    cudnn_module,
    gloo_device_staging,
    nccl_process_group,
    legacy_cuda_tensor_types,
    new_device_cpp_extension,
)

__all__ = [
    "ENTRIES",
    "PINNED_TORCH_VERSION",
    "PatchNoLongerAppliesError",
    "TorchVersionMismatchError",
    "after_torch_c_init",
    "applied",
    "before_torch_c_init",
    "check_torch_version",
    "markdown_table",
]

_applied: list[str] = []


def applied() -> list[str]:
    """The entries applied in this process, in order."""
    return list(_applied)


def before_torch_c_init() -> None:
    _applied.append(load_before_torch_c.NAME)


def after_torch_c_init(torch_C: ModuleType, C: ModuleType) -> None:
    version = getattr(sys.modules.get("torch"), "__version__", None)
    load_before_torch_c.check(version, torch_C)
    torch_c_names.check(version, torch_C)
    raw_stream_for_dynamo.check(version, torch_C)
    cuda_storage.check(version, torch_C)
    version_cuda.check(version, sys.modules.get("torch.version"))
    cudnn_module.check(version, torch_C)
    gloo_device_staging.check(version, torch_C)
    nccl_process_group.check(version, torch_C)
    legacy_cuda_tensor_types.check(version, torch_C)
    new_device_cpp_extension.check(version, torch_C)

    torch_c_names.apply(torch_C, C)  # includes _cuda_getCurrentRawStream
    _applied.extend([torch_c_names.NAME, raw_stream_for_dynamo.NAME])
    cuda_storage.apply(C)
    _applied.append(cuda_storage.NAME)
    version_cuda.apply(C)
    _applied.append(version_cuda.NAME)
    cudnn_module.apply(torch_C, C)
    _applied.append(cudnn_module.NAME)
    gloo_device_staging.apply(C)
    _applied.append(gloo_device_staging.NAME)
    nccl_process_group.apply(torch_C, C)
    _applied.append(nccl_process_group.NAME)
    legacy_cuda_tensor_types.apply(C)
    _applied.append(legacy_cuda_tensor_types.NAME)
    new_device_cpp_extension.apply()
    _applied.append(new_device_cpp_extension.NAME)


def markdown_table() -> str:
    """The ledger as the README's Markdown table."""
    lines = [
        f"Ledger of changes to stock torch {PINNED_TORCH_VERSION} "
        "(third_device/torch_cuda/torch_patches/):",
        "",
        "| entry | what it changes | why | upstream change that removes it |",
        "|---|---|---|---|",
    ]
    for entry in ENTRIES:
        cells = (f"`{entry.NAME}`", entry.WHAT, entry.WHY, entry.UPSTREAM)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
