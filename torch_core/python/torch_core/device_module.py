"""Builds a backend's device module (``torch.<name>``) from its C module.

Written once for every backend: the C module is a pybind11 module on which
``torch_core::bind_device_api`` (torch_core/csrc/device/python_bindings.h) bound the
device functions (``_device_count``, ``_current_stream``, ``_memory_stats``, ...); this
file turns them into the ``torch.cuda``-shaped API: devices, lazy initialisation with a
fork check, streams and events (subclasses of ``torch.Stream`` / ``torch.Event``, so
the generic torch APIs accept them), memory statistics, random number state, and the
CPU fallback's policy and counters. No backend is named here; the caller passes its
name and C module.
"""

from __future__ import annotations

import sys
import threading
import traceback
import types
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

import torch

from torch_core.gpu_trace import build_gpu_trace_module

__all__ = ["DeviceLike", "build_device_module"]

# What the device functions accept: a torch.device or "name:i" of this device, an index,
# or None for the current device.
DeviceLike = torch.device | str | int | None
_T = TypeVar("_T")


def build_device_module(
    name: str, C: types.ModuleType, *, module_name: str | None = None
) -> types.ModuleType:
    """Returns a new module ``torch.<name>`` over ``C``; register it with
    ``torch._register_device_module(name, module)``.

    Args:
        name: the device type as torch spells it (``"cuda"``, or the PrivateUse1 name).
        C: the backend's C module (``torch_core::bind_device_api`` functions).
        module_name: the module's ``__name__`` (default ``torch.<name>``).
    """
    mod = types.ModuleType(module_name or f"torch.{name}")
    mod.__doc__ = f"The {name} device: devices, streams, events, memory, random state."
    ns: dict[str, Any] = {}

    def export(obj: _T, export_name: str | None = None) -> _T:
        ns[export_name or obj.__name__] = obj
        return obj

    # --- Lazy initialisation and the fork check ------------------------------------------
    state = types.SimpleNamespace(initialized=False, queued=[], lock=threading.RLock())
    tls = threading.local()

    @export
    def _is_in_bad_fork() -> bool:
        return bool(C._is_in_bad_fork())

    @export
    def is_initialized() -> bool:
        return state.initialized and not _is_in_bad_fork()

    @export
    def _lazy_call(callable: Callable[[], object], **kwargs: bool) -> None:
        with state.lock:
            if is_initialized():
                callable()
            else:
                state.queued.append((callable, traceback.format_stack()))

    @export
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

    @export
    def init() -> None:
        _lazy_init()

    # --- Devices -------------------------------------------------------------------------
    @export
    def is_available() -> bool:
        return C._device_count() > 0

    @export
    def device_count() -> int:
        return int(C._device_count())

    @export
    def current_device() -> int:
        _lazy_init()
        return int(C._current_device())

    @export
    def _get_device_index(
        device: DeviceLike, optional: bool = False, allow_cpu: bool = False
    ) -> int:
        if isinstance(device, str):
            device = torch.device(device)
        index: int | None
        if isinstance(device, torch.device):
            if device.type == name:
                index = device.index
            elif allow_cpu and device.type == "cpu":
                return -1
            else:
                raise ValueError(f"Expected a {name} device, but got: {device}")
        elif isinstance(device, int):
            index = device
        elif device is None:
            index = None
        else:
            raise TypeError(f"Expected a device (torch.device, str or int), but got {device!r}")
        if index is None:
            if not optional:
                raise ValueError(
                    f"Expected a {name} device with an index, or an integer, but got: {device}"
                )
            return current_device()
        return index

    @export
    def set_device(device: DeviceLike) -> None:
        index = _get_device_index(device, optional=True)
        if index >= 0:
            _lazy_init()
            C._set_device(index)

    class device:
        """Context manager that makes ``device`` the current device, then restores it."""

        def __init__(self, device: DeviceLike):
            self.idx = _get_device_index(device, optional=True) if device is not None else -1
            self.prev_idx = -1

        def __enter__(self) -> None:
            if self.idx >= 0:
                _lazy_init()
            self.prev_idx = C._exchange_device(self.idx)

        def __exit__(self, *args: object) -> bool:
            C._exchange_device(self.prev_idx)
            return False

    device.__qualname__ = "device"
    export(device)

    class device_of(device):
        """Context manager that makes the device of a tensor or storage current."""

        def __init__(self, obj: torch.Tensor | torch.UntypedStorage):
            index = obj.get_device() if obj.device.type == name else -1
            super().__init__(index)

    device_of.__qualname__ = "device_of"
    export(device_of)

    @export
    def synchronize(device: DeviceLike = None) -> None:
        _lazy_init()
        C._synchronize(_get_device_index(device, optional=True))

    class _DeviceProperties:
        def __init__(self, props: dict[str, Any]):
            self.__dict__.update(props)

        def __repr__(self) -> str:
            return (
                f"_{name.capitalize()}DeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})"
            )

    @export
    def get_device_properties(device: DeviceLike = None) -> _DeviceProperties:
        _lazy_init()
        return _DeviceProperties(C._get_device_properties(_get_device_index(device, optional=True)))

    @export
    def get_device_name(device: DeviceLike = None) -> str:
        return get_device_properties(device).name

    @export
    def get_device_capability(device: DeviceLike = None) -> tuple[int, int]:
        props = get_device_properties(device)
        return props.major, props.minor

    @export
    def get_amp_supported_dtype() -> list[torch.dtype]:
        return [torch.float16, torch.bfloat16]

    # --- Streams and events --------------------------------------------------------------
    class Stream(torch.Stream):
        """A stream of the device: work queued on one runs in order."""

        def __new__(cls, device: DeviceLike = None, priority: int = 0, **kwargs: int) -> Stream:
            if "stream_id" in kwargs:
                return super().__new__(cls, **kwargs)
            _lazy_init()
            index = _get_device_index(device, optional=True)
            return super().__new__(cls, device=torch.device(name, index), priority=priority)

    Stream.__qualname__ = "Stream"
    Stream.__module__ = mod.__name__
    export(Stream)

    # torch.Event's methods accept only torch.Event itself as the other event
    # (elapsed_time, Stream.wait_event check the exact type), so Event makes plain
    # torch.Event objects of this device; isinstance(e, Event) still holds for them.
    class _EventMeta(type):
        def __call__(
            cls, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False
        ) -> torch.Event:
            _lazy_init()
            return torch.Event(
                device=torch.device(name, current_device()),
                enable_timing=enable_timing,
                blocking=blocking,
                interprocess=interprocess,
            )

        def __instancecheck__(cls, obj: object) -> bool:
            return isinstance(obj, torch.Event) and obj.device.type == name

    class Event(metaclass=_EventMeta):
        """An event of the device: a point in a stream to wait for or time
        (``Event(enable_timing=False, blocking=False, interprocess=False)``)."""

    Event.__qualname__ = "Event"
    Event.__module__ = mod.__name__
    export(Event)

    def _wrap(packed: tuple[int, int, int]) -> Stream:
        stream_id, device_index, device_type = packed
        return Stream(stream_id=stream_id, device_index=device_index, device_type=device_type)

    @export
    def current_stream(device: DeviceLike = None) -> Stream:
        _lazy_init()
        return _wrap(C._current_stream(_get_device_index(device, optional=True)))

    @export
    def default_stream(device: DeviceLike = None) -> Stream:
        _lazy_init()
        return _wrap(C._default_stream(_get_device_index(device, optional=True)))

    @export
    def set_stream(stream: torch.Stream | None) -> None:
        if stream is None:
            return
        _lazy_init()
        C._set_stream(stream.stream_id, stream.device_index, stream.device_type)

    class StreamContext:
        """Makes ``stream`` current (and its device, if another) inside the block."""

        def __init__(self, stream: torch.Stream | None):
            self.stream = stream
            self.prev_stream: Stream | None = None
            self.prev_device = -1

        def __enter__(self) -> None:
            if self.stream is None:
                return
            self.prev_device = C._exchange_device(self.stream.device_index)
            self.prev_stream = current_stream(self.stream.device_index)
            set_stream(self.stream)

        def __exit__(self, *args: object) -> None:
            if self.stream is None:
                return
            set_stream(self.prev_stream)
            C._exchange_device(self.prev_device)

    StreamContext.__qualname__ = "StreamContext"
    export(StreamContext)

    @export
    def stream(stream: torch.Stream | None) -> StreamContext:
        return StreamContext(stream)

    if hasattr(C, "_sleep"):
        export(C._sleep, "_sleep")

    # --- Memory ----------------------------------------------------------------------------
    def _index(device: DeviceLike) -> int:
        return _get_device_index(device, optional=True)

    @export
    def memory_stats(device: DeviceLike = None) -> OrderedDict[str, int]:
        if not is_initialized():
            return OrderedDict()
        return OrderedDict(sorted(C._memory_stats(_index(device)).items()))

    @export
    def memory_allocated(device: DeviceLike = None) -> int:
        return memory_stats(device).get("allocated_bytes.all.current", 0)

    @export
    def max_memory_allocated(device: DeviceLike = None) -> int:
        return memory_stats(device).get("allocated_bytes.all.peak", 0)

    @export
    def memory_reserved(device: DeviceLike = None) -> int:
        return memory_stats(device).get("reserved_bytes.all.current", 0)

    @export
    def max_memory_reserved(device: DeviceLike = None) -> int:
        return memory_stats(device).get("reserved_bytes.all.peak", 0)

    @export
    def reset_peak_memory_stats(device: DeviceLike = None) -> None:
        if is_initialized():
            C._reset_peak_memory_stats(_index(device))

    @export
    def reset_accumulated_memory_stats(device: DeviceLike = None) -> None:
        if is_initialized():
            C._reset_accumulated_memory_stats(_index(device))

    @export
    def empty_cache() -> None:
        if is_initialized():
            C._empty_cache()

    @export
    def mem_get_info(device: DeviceLike = None) -> tuple[int, int]:
        _lazy_init()
        return tuple(C._mem_get_info(_index(device)))

    @export
    def set_per_process_memory_fraction(fraction: float, device: DeviceLike = None) -> None:
        _lazy_init()
        C._set_memory_fraction(float(fraction), _index(device))

    @export
    def memory_snapshot() -> list[dict[str, Any]]:
        if not is_initialized():
            return []
        return list(C._memory_snapshot())

    @export
    def memory_summary(device: DeviceLike = None, abbreviated: bool = False) -> str:
        """A table of the allocator's statistics (current, peak, allocated, freed)."""
        stats = memory_stats(device)
        index = _index(device)

        def size(n: int) -> str:
            for unit in ("B  ", "KiB", "MiB", "GiB"):
                if abs(n) < 1024 or unit == "GiB":
                    return f"{n:7d} {unit}" if unit == "B  " else f"{n:7.2f} {unit}"
                n /= 1024
            return str(n)

        rows = [
            ("Allocated memory", "allocated_bytes", size),
            ("Active memory", "active_bytes", size),
            ("Requested memory", "requested_bytes", size),
            ("Reserved memory", "reserved_bytes", size),
            ("Non-releasable memory", "inactive_split_bytes", size),
            ("Allocations", "allocation", str),
            ("Active allocs", "active", str),
            ("Device reserved segments", "segment", str),
        ]
        width = 80
        columns = ("current", "peak", "allocated", "freed")
        header = ("Metric", "Cur Usage", "Peak Usage", "Tot Alloc", "Tot Freed")

        def row(cells: tuple[str, ...]) -> str:
            return f"{cells[0]:<26}|{cells[1]:>13}|{cells[2]:>13}|{cells[3]:>12}|{cells[4]:>12}"

        lines = [
            "=" * width,
            f" {name} memory summary, device {index}".ljust(width),
            "-" * width,
            row(header),
            "-" * width,
        ]
        for title, key, fmt in rows:
            values = [stats.get(f"{key}.all.{column}", 0) for column in columns]
            lines.append(row((title, *(fmt(v) for v in values))))
        lines.append("-" * width)
        retries, ooms = stats.get("num_alloc_retries", 0), stats.get("num_ooms", 0)
        lines.append(row(("Alloc retries / OOMs", str(retries), str(ooms), "", "")))
        lines.append("=" * width)
        return "\n".join(lines) + "\n"

    # --- Random state -----------------------------------------------------------------------
    generators: list[torch.Generator] = []

    def _generator(index: int) -> torch.Generator:
        _lazy_init()
        if not generators:
            generators.extend(C._default_generator(i) for i in range(device_count()))
        return generators[index]

    class _DefaultGenerators:
        def __getitem__(self, index: int) -> torch.Generator:
            return _generator(index)

        def __len__(self) -> int:
            return device_count()

        def __iter__(self):
            return (_generator(i) for i in range(device_count()))

    ns["default_generators"] = _DefaultGenerators()

    @export
    def manual_seed(seed: int) -> None:
        seed = int(seed)
        _lazy_call(lambda: _generator(current_device()).manual_seed(seed), seed=True)

    @export
    def manual_seed_all(seed: int) -> None:
        seed = int(seed)

        def seed_all() -> None:
            for i in range(device_count()):
                _generator(i).manual_seed(seed)

        _lazy_call(seed_all, seed_all=True)

    @export
    def seed() -> None:
        _lazy_call(lambda: _generator(current_device()).seed())

    @export
    def seed_all() -> None:
        def reseed() -> None:
            first = _generator(0).seed()
            for i in range(1, device_count()):
                _generator(i).manual_seed(first)

        _lazy_call(reseed)

    @export
    def initial_seed() -> int:
        return _generator(current_device()).initial_seed()

    @export
    def get_rng_state(device: DeviceLike = name) -> torch.Tensor:
        return _generator(_index(device)).get_state()

    @export
    def get_rng_state_all() -> list[torch.Tensor]:
        return [get_rng_state(i) for i in range(device_count())]

    @export
    def set_rng_state(new_state: torch.Tensor, device: DeviceLike = name) -> None:
        state_copy = new_state.clone(memory_format=torch.contiguous_format)
        index = _index(device)
        _lazy_call(lambda: _generator(index).set_state(state_copy))

    @export
    def set_rng_state_all(new_states: list[torch.Tensor]) -> None:
        for i, new_state in enumerate(new_states):
            set_rng_state(new_state, i)

    # --- CPU fallback ---------------------------------------------------------------------
    @export
    def fallback_counts() -> dict[str, int]:
        """{operator: calls that ran on the CPU} since the last reset."""
        return dict(C._fallback_counts())

    @export
    def reset_fallback_counts() -> None:
        C._reset_fallback_counts()

    @export
    def set_fallback_policy(policy: str) -> None:
        """'allow', 'warn' (once per operator) or 'error' (NotImplementedError)."""
        C._set_fallback_policy(policy)

    @export
    def get_fallback_policy() -> str:
        return str(C._get_fallback_policy())

    # torch.serialization asks device_module._utils._get_device_index.
    ns["_utils"] = types.SimpleNamespace(_get_device_index=_get_device_index)
    # torch.<name>._gpu_trace, importable by that name as torch.cuda._gpu_trace is.
    ns["_gpu_trace"] = build_gpu_trace_module(name, mod.__name__)
    sys.modules.setdefault(ns["_gpu_trace"].__name__, ns["_gpu_trace"])

    for key, value in ns.items():
        if callable(value) and getattr(value, "__module__", None) == __name__:
            try:
                value.__module__ = mod.__name__
            except (AttributeError, TypeError):
                pass
        setattr(mod, key, value)
    mod.__all__ = sorted(k for k in ns if not k.startswith("_"))
    return mod
