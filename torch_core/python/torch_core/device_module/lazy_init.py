"""Lazy initialisation of the device, with the fork check and calls queued until then
(stock: torch.cuda._lazy_init, _lazy_call)."""

from __future__ import annotations

import threading
import traceback
import types
from collections.abc import Callable

from torch_core.device_module.context import DeviceContext


def add_lazy_init(ctx: DeviceContext) -> None:
    name, C = ctx.name, ctx.C

    state = types.SimpleNamespace(initialized=False, queued=[], lock=threading.RLock())
    tls = threading.local()

    @ctx.export
    def _is_in_bad_fork() -> bool:
        return bool(C._is_in_bad_fork())

    @ctx.export
    def is_initialized() -> bool:
        return state.initialized and not _is_in_bad_fork()

    @ctx.export
    def _lazy_call(callable: Callable[[], object], **kwargs: bool) -> None:
        with state.lock:
            if is_initialized():
                callable()
            else:
                state.queued.append((callable, traceback.format_stack()))

    @ctx.export
    def _lazy_init() -> None:
        if is_initialized() or getattr(tls, "is_initializing", False):
            return
        with state.lock:
            if is_initialized():
                return
            if _is_in_bad_fork():
                raise RuntimeError(
                    f"Cannot re-initialize {name} in forked subprocess. To use {name} with "
                    "multiprocessing, you must use the 'spawn' start method"
                )
            C._init()
            tls.is_initializing = True
            try:
                for queued, origin in state.queued:
                    try:
                        queued()
                    except Exception as error:
                        raise RuntimeError(
                            f"{name} call failed lazily at initialization with error: {error}\n\n"
                            "call originally invoked at:\n\n" + "".join(origin)
                        ) from error
                state.queued.clear()
            finally:
                tls.is_initializing = False
            state.initialized = True

    @ctx.export
    def init() -> None:
        _lazy_init()
