"""What this torch_cuda was built for, and whether this machine can run it."""

from __future__ import annotations

from dataclasses import dataclass

import _CUDAC


@dataclass(frozen=True)
class BuildInfo:
    cuda_version: str
    cudart_version: int
    archs: tuple[str, ...]
    device_type: str
    variant: str


def build_info() -> BuildInfo:
    return BuildInfo(
        cuda_version=_CUDAC.cuda_version,
        cudart_version=_CUDAC.cudart_version,
        archs=tuple(_CUDAC.built_archs),
        device_type=_CUDAC.device_type,
        variant=_CUDAC.variant,
    )


def get_arch_list() -> list[str]:
    """As torch.cuda.get_arch_list(): the SASS architectures the kernels carry."""
    return list(_CUDAC.built_archs)


def device_count() -> int:
    return _CUDAC.device_count()


def is_available() -> bool:
    return device_count() > 0
