"""The torch.cuda-style Python API of torch_cuda (grows with the runtime)."""

from torch_cuda.core.version import build_info, device_count, get_arch_list, is_available

__all__ = ["build_info", "device_count", "get_arch_list", "is_available"]
