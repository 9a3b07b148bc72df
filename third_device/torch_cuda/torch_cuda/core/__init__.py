"""The torch.cuda-style Python API of torch_cuda beyond stock torch.cuda: build
information and the CPU fallback's policy and counters (stock torch.cuda has none)."""

import _CUDAC
from torch_cuda.core.version import build_info, device_count, get_arch_list, is_available


def fallback_counts() -> dict[str, int]:
    """{operator: calls that ran on the CPU} since the last reset."""
    return dict(_CUDAC._fallback_counts())


def reset_fallback_counts() -> None:
    _CUDAC._reset_fallback_counts()


def set_fallback_policy(policy: str) -> None:
    """'allow', 'warn' (once per operator) or 'error' (NotImplementedError)."""
    _CUDAC._set_fallback_policy(policy)


def get_fallback_policy() -> str:
    return str(_CUDAC._get_fallback_policy())


__all__ = [
    "build_info",
    "device_count",
    "fallback_counts",
    "get_arch_list",
    "get_fallback_policy",
    "is_available",
    "reset_fallback_counts",
    "set_fallback_policy",
]
