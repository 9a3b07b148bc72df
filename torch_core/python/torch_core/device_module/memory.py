"""Memory: the caching allocator's statistics, limits, snapshot and summary table."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from torch_core.device_module.context import DeviceContext, DeviceLike


def add_memory(ctx: DeviceContext) -> None:
    name, C = ctx.name, ctx.C
    _lazy_init = ctx.ns["_lazy_init"]
    is_initialized = ctx.ns["is_initialized"]

    @ctx.export
    def memory_stats(device: DeviceLike = None) -> OrderedDict[str, int]:
        if not is_initialized():
            return OrderedDict()
        return OrderedDict(sorted(C._memory_stats(ctx.index(device)).items()))

    @ctx.export
    def memory_allocated(device: DeviceLike = None) -> int:
        return memory_stats(device).get("allocated_bytes.all.current", 0)

    @ctx.export
    def max_memory_allocated(device: DeviceLike = None) -> int:
        return memory_stats(device).get("allocated_bytes.all.peak", 0)

    @ctx.export
    def memory_reserved(device: DeviceLike = None) -> int:
        return memory_stats(device).get("reserved_bytes.all.current", 0)

    @ctx.export
    def max_memory_reserved(device: DeviceLike = None) -> int:
        return memory_stats(device).get("reserved_bytes.all.peak", 0)

    @ctx.export
    def reset_peak_memory_stats(device: DeviceLike = None) -> None:
        if is_initialized():
            C._reset_peak_memory_stats(ctx.index(device))

    @ctx.export
    def reset_accumulated_memory_stats(device: DeviceLike = None) -> None:
        if is_initialized():
            C._reset_accumulated_memory_stats(ctx.index(device))

    @ctx.export
    def empty_cache() -> None:
        if is_initialized():
            C._empty_cache()

    @ctx.export
    def mem_get_info(device: DeviceLike = None) -> tuple[int, int]:
        _lazy_init()
        return tuple(C._mem_get_info(ctx.index(device)))

    @ctx.export
    def set_per_process_memory_fraction(fraction: float, device: DeviceLike = None) -> None:
        _lazy_init()
        C._set_memory_fraction(float(fraction), ctx.index(device))

    @ctx.export
    def memory_snapshot() -> list[dict[str, Any]]:
        if not is_initialized():
            return []
        return list(C._memory_snapshot())

    @ctx.export
    def memory_summary(device: DeviceLike = None, abbreviated: bool = False) -> str:
        """A table of the allocator's statistics (current, peak, allocated, freed)."""
        stats = memory_stats(device)
        index = ctx.index(device)

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
