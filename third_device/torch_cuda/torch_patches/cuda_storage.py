"""Ledger entry: storages on the CUDA device.

What: ``torch.UntypedStorage(n, device="cuda")`` and ``torch._utils._to`` (behind
    ``storage.cuda()``, ``storage.to("cuda")`` and ``torch.load(map_location="cuda")``)
    make CUDA storages through a tensor factory: ``torch.empty(n, dtype=torch.uint8,
    device=...).untyped_storage()``, the backend's allocator. ``_to`` is replaced in
    torch._utils right after torch._C's init (torch.storage imports it later), and
    ``UntypedStorage.__new__`` when torch.storage has been imported (a one-shot
    post-import hook). ``UntypedStorage.resize_`` of a CUDA storage resizes it through
    torch_core (``_CUDAC._storage_resize_``: a new block from the caching allocator, the
    common prefix copied on the current stream). ``UntypedStorage._share_cuda_``,
    ``_new_shared_cuda`` and ``_release_ipc_counter_cuda`` (what torch.multiprocessing
    calls to send a CUDA tensor to another process and rebuild it there) go through
    torch_core's IPC sharing (``_CUDAC._share_storage_ipc``, ``_new_shared_storage_ipc``,
    ``_release_ipc_counter``): CUDA IPC handles on the real variant, the simulated
    device's shared-memory heap on the simulated one.
Why: THPStorage_pynew and THPStorage_resize_ in the CPU wheel's libtorch_python recognise
    the CUDA device only ``#ifdef USE_CUDA`` ("Storage device not recognized: cuda",
    "built without USE_CUDA"); THPStorage_shareCuda, _newSharedCuda and
    _releaseIPCCounter say "CUDA is not available", which is false once torch_cuda is
    active.
Upstream: THPStorage_pynew and THPStorage_resize_ serving any device through its
    registered allocator (as they do for PrivateUse1), not by a compile-time device list;
    the storage sharing methods calling a device's registered IPC hooks.
"""

from __future__ import annotations

import sys
from types import ModuleType

from torch_cuda.torch_patches._after_import import run_after_import
from torch_cuda.torch_patches._pinned import check_torch_version, probe, torch_source

NAME = "cuda_storage"
WHAT = (
    "UntypedStorage(device='cuda') and torch._utils._to make CUDA storages via torch.empty; "
    "UntypedStorage.resize_ of a CUDA storage and the CUDA IPC methods (_share_cuda_, "
    "_new_shared_cuda, _release_ipc_counter_cuda) go through torch_core"
)
WHY = (
    "THPStorage_pynew, _resize_ and the sharing methods know the CUDA device only "
    "#ifdef USE_CUDA (_shareCuda: 'CUDA is not available')"
)
UPSTREAM = "THPStorage_pynew and THPStorage_resize_ serving any device through its allocator"

_TO_LINE = "untyped_storage = torch.UntypedStorage(self.size(), device=device)"


def check(torch_version: str | None, torch_C: ModuleType) -> None:
    check_torch_version(torch_version, entry=NAME)
    text = torch_source(torch_C, "_utils.py")
    probe(NAME, _TO_LINE in text, f"torch/_utils.py:_to making `{_TO_LINE}`", "another _to")
    probe(
        NAME,
        callable(getattr(torch_C.StorageBase, "resize_", None)),
        "torch._C.StorageBase.resize_",
        "no such method",
    )


def _cuda_storage(size: int, device: object) -> object:
    import torch

    return torch.empty(int(size), dtype=torch.uint8, device=device).untyped_storage()


def _is_cuda(device: object) -> bool:
    if device is None:
        return False
    import torch

    return torch.device(device).type == "cuda"


def _patch_to(utils: ModuleType) -> None:
    stock_to = utils._to

    def _to(self: object, device: object, non_blocking: bool = False) -> object:
        if _is_cuda(device) and self.device != device and not getattr(self, "is_sparse", False):
            import torch

            with torch.cuda.device(device):
                storage = _cuda_storage(self.size(), device)
            storage.copy_(self, non_blocking)
            return storage
        return stock_to(self, device, non_blocking)

    _to.__doc__ = stock_to.__doc__
    _to.__wrapped__ = stock_to
    utils._to = _to


def _patch_untyped_storage(storage_module: ModuleType, C: ModuleType) -> None:
    cls = storage_module.UntypedStorage
    stock_new = cls.__new__
    stock_resize = cls.resize_

    def __new__(klass: type, *args: object, device: object = None, **kwargs: object) -> object:
        if klass is cls and _is_cuda(device) and not kwargs:
            if not args:
                return _cuda_storage(0, device)
            if len(args) == 1 and isinstance(args[0], int):
                return _cuda_storage(args[0], device)
            if len(args) == 1:  # a sequence of bytes: made on the host, then copied
                host = stock_new(klass, *args)
                storage = _cuda_storage(host.nbytes(), device)
                storage.copy_(host)
                return storage
        return stock_new(klass, *args, device=device, **kwargs)

    cls.__new__ = staticmethod(__new__)

    def resize_(self: object, size: int) -> object:
        if self.device.type == "cuda":
            C._storage_resize_(self, int(size))
            return self
        return stock_resize(self, size)

    resize_.__doc__ = stock_resize.__doc__
    resize_.__wrapped__ = stock_resize
    cls.resize_ = resize_

    _patch_ipc(cls, C)


def _patch_ipc(cls: type, C: ModuleType) -> None:
    """The CUDA IPC methods of UntypedStorage; stock's answer for other devices."""
    stock_share_cuda = cls._share_cuda_

    def _share_cuda_(self: object) -> tuple[object, ...]:
        if self.device.type == "cuda":
            return C._share_storage_ipc(self)
        return stock_share_cuda(self)

    def _new_shared_cuda(*args: object) -> object:
        import torch

        # Stock's CUDAGuard initialises CUDA on the way; a direct call may come first.
        torch.cuda._lazy_init()
        return C._new_shared_storage_ipc(*args)

    _share_cuda_.__wrapped__ = stock_share_cuda
    cls._share_cuda_ = _share_cuda_
    cls._new_shared_cuda = staticmethod(_new_shared_cuda)
    cls._release_ipc_counter_cuda = staticmethod(C._release_ipc_counter)


def apply(C: ModuleType) -> None:
    _patch_to(sys.modules["torch._utils"])
    run_after_import("torch.storage", lambda module: _patch_untyped_storage(module, C))
