"""OpInfo conformance of a backend: every op in torch's op_db, run on its device and the CPU.

The backend under test is a Python package and the device type it gives torch: --backend
and --device, or CONFORMANCE_BACKEND and CONFORMANCE_DEVICE in the environment (the
test targets take them from //third_device:backends.bzl: torch_sim on "sim", the
simulated torch_cuda on "cuda").

For each OpInfo of `torch.testing._internal.common_methods_invocations.op_db` (the pinned
torch's), the first --samples sample inputs for float32, and for one integer dtype the op
supports on both the CPU and the device (int64 first), are generated on the CPU, run there,
moved to the device (tensors, and a `device=` argument for factory functions), run on the
device, and the outputs (tensors, nested tuples/lists, scalars) moved back and compared
with torch.testing.assert_close: its default tolerances for the dtype, or the OpInfo's own
toleranceOverride for TestCommon.test_compare_cpu (the upstream test of the same thing)
where it gives one. `output_process_fn_grad` is applied to both sides first, as
test_compare_cpu does (SVD-like ops have several valid answers). An op whose CPU outputs
depend on the seed (random ops), or that returns uninitialised memory (empty*), is compared
by shape and dtype only.

Each OpInfo's error_inputs are also run on the device, as upstream's TestCommon.test_errors
does (unless the OpInfo skips that test there): each must raise the stock error type with
a message matching its regex.

Each op is classified
  agree   every sample ran on the device and matched the CPU
  differ  a sample ran but gave other values (or shapes/dtypes/devices): wrong results
  error   a sample raised on the device (the backend cannot run it yet): the first line
  crash   the process died (a signal) or hung while running the op
  n/a     no sample could be run: no supported dtype, or the CPU itself raised on each
and as native (no call reached the CPU fallback) or fallback (the aten ops that did, from
the backend's per-op fallback counters).

Ops run in a worker process, one after another; if it dies the op it was running is
reported as a crash and a new worker takes the rest, so one segfault hides nothing.

Under Bazel (a sharded py_test) each shard takes every n-th op, writes its table to
$TEST_UNDECLARED_OUTPUTS_DIR and fails on: an op not attempted, a crash or "differ" not
listed in known_differences.txt (or listed but now agreeing: remove it then), or an error
input that does not raise as stock expects.
Errors are reported and allowed. Outside Bazel:
    python3 tests/conformance/op_conformance.py --backend PACKAGE --device TYPE \
        --out FILE [--samples N] [--ops NAME ...]
with torch and the backend's package importable (PYTHONPATH). Beside this file: the
error_inputs and variant checks (conformance_checks.py), the values' handling
(conformance_values.py), the table and the known differences (conformance_report.py), and
the parent's worker processes (conformance_workers.py).
"""

from __future__ import annotations

import argparse
import collections
import functools
import importlib
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from conformance_checks import check_error_inputs, check_variants, tolerance
from conformance_report import (
    CLASSES,
    markdown,
    read_known_differences,
    row_error_inputs,
    row_variants,
)
from conformance_values import (
    compare,
    device_types,
    first_line,
    metadata,
    same,
    to_cpu,
    to_device,
)
from conformance_workers import run_all, start_worker

DEFAULT_SAMPLES = 3
OP_TIMEOUT_S = 120.0
KNOWN_DIFFERENCES = Path(__file__).with_name("known_differences.txt")
# The backend under test (its package, its device type); --backend and --device set them
# in the parent, which passes them to its workers.
BACKEND = os.environ.get("CONFORMANCE_BACKEND", "torch_sim")
DEVICE = os.environ.get("CONFORMANCE_DEVICE", "sim")
# Ops whose values are uninitialised memory on any device: compared by shape and dtype
# only (upstream's test_compare_cpu skips them as "not comparable").
ARBITRARY_VALUES = frozenset(
    ["empty", "empty_like", "empty_permuted", "empty_strided", "new_empty", "new_empty_strided"])


# --------------------------------------------------------------------------------------
# Worker side: runs ops, one JSON line per event on the result pipe.
# --------------------------------------------------------------------------------------


def _op_key(op: object) -> str:
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def _load_op_db() -> list[object]:
    from torch.testing._internal.common_methods_invocations import op_db

    return op_db


class _Backend:
    """What the harness needs of the backend under test: its fallback counters and a sync."""

    def __init__(self, fallback: object, synchronize: Callable[[], None]):
        self.synchronize = synchronize
        self.set_fallback_policy = fallback.set_fallback_policy
        self.reset_fallback_counts = fallback.reset_fallback_counts
        self.fallback_counts = fallback.fallback_counts


@functools.cache
def _backend() -> _Backend:
    """Loads BACKEND and returns its hooks: the package first (torch_cuda activates the CUDA
    key before torch._C, if no .pth did), then torch's module of DEVICE. The fallback
    counters are the package's where it has them (torch_cuda: torch.cuda is stock's API),
    else the device module's (torch.sim)."""
    package = importlib.import_module(BACKEND)
    import torch

    device_module = getattr(torch, DEVICE)
    counters = package if hasattr(package, "fallback_counts") else device_module
    return _Backend(counters, device_module.synchronize)


def run_op(op: object, max_samples: int) -> dict:
    """Runs one OpInfo's samples on the CPU and the device; returns its result row."""
    import torch

    backend = _backend()
    result = {"op": _op_key(op), "class": "n/a", "detail": "", "fallback": [], "samples": 0,
              "dtypes": []}
    # The dtypes stock supports on this device type (the OpInfo's dtypesIfCUDA for "cuda";
    # a PrivateUse1 device has the CPU's) that the CPU reference supports too.
    supported = op.supported_dtypes("cpu") & op.supported_dtypes(DEVICE)
    dtypes = [torch.float32] if torch.float32 in supported else []
    dtypes += [d for d in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)
               if d in supported][:1]
    if not dtypes:
        result["detail"] = f"no float32 or integer dtype on the CPU and {DEVICE}"
        return result
    fell_back: collections.Counter = collections.Counter()
    errors, differences, cpu_errors, random_ops = [], [], [], False
    for dtype in dtypes:
        try:
            samples = op.sample_inputs("cpu", dtype, requires_grad=False)
            samples = [s for _, s in zip(range(max_samples), samples, strict=False)]
        except Exception as error:  # sample generation itself
            cpu_errors.append(f"{dtype}: samples: {first_line(error)}")
            continue
        for index, sample in enumerate(samples):
            where = f"{str(dtype).replace('torch.', '')} sample {index}"
            try:
                torch.manual_seed(0)
                expected = op(sample.input, *sample.args, **sample.kwargs)
                expected = to_cpu(sample.output_process_fn_grad(expected))
                torch.manual_seed(1)
                other = to_cpu(sample.output_process_fn_grad(
                    op(sample.input, *sample.args, **sample.kwargs)))
            except Exception as error:
                cpu_errors.append(f"{where}: {first_line(error)}")
                continue
            random = op.name in ARBITRARY_VALUES or not same(other, expected)
            random_ops |= random
            result["samples"] += 1
            if str(dtype) not in result["dtypes"]:
                result["dtypes"].append(str(dtype))
            try:
                moved = to_device((sample.input, sample.args, sample.kwargs), DEVICE)
                backend.synchronize()
                backend.reset_fallback_counts()
                torch.manual_seed(0)
                actual = op(moved[0], *moved[1], **moved[2])
                actual = sample.output_process_fn_grad(actual)
                backend.synchronize()
                fell_back.update(backend.fallback_counts())
            except Exception as error:
                fell_back.update(backend.fallback_counts())
                errors.append(f"{where}: {first_line(error)}")
                continue
            devices = device_types(actual, set())
            if devices and devices != {DEVICE} and device_types(expected, set()):
                differences.append(f"{where}: output on {sorted(devices)}, not {DEVICE}")
                continue
            actual = to_cpu(actual)
            try:
                if random:
                    if metadata(actual) != metadata(expected):
                        raise AssertionError(
                            f"arbitrary values: {metadata(actual)} != {metadata(expected)}")
                else:
                    compare(actual, expected, tolerance(op, dtype))
            except AssertionError as error:
                differences.append(f"{where}: {first_line(error)}")
    result["fallback"] = sorted(fell_back)
    result["random"] = random_ops
    if differences:
        result["class"], result["detail"] = "differ", differences[0]
    elif errors:
        result["class"], result["detail"] = "error", errors[0]
    elif result["samples"]:
        result["class"] = "agree"
        if random_ops:
            result["detail"] = "values arbitrary (random or uninitialised): shapes, dtypes compared"
    else:
        result["detail"] = ("CPU: " + cpu_errors[0]) if cpu_errors else "no samples"
    return result


def worker_main(result_fd: int, max_samples: int) -> None:
    import warnings

    backend = _backend()
    import torch

    warnings.simplefilter("ignore")
    torch.set_num_threads(1)
    # cuDNN rounds float32 convolutions to TF32 by default, as on an Ampere GPU; stock's
    # tests compare them with the CPU with it off (tf32_off), at float32's tolerances.
    torch.backends.cudnn.allow_tf32 = False
    backend.set_fallback_policy("allow")
    ops = {_op_key(op): op for op in _load_op_db()}
    out = os.fdopen(result_fd, "w", buffering=1)
    out.write(json.dumps({"ops": list(ops)}) + "\n")
    for line in sys.stdin:
        key = line.strip()
        if not key:
            continue
        out.write(json.dumps({"start": key}) + "\n")
        try:
            row = run_op(ops[key], max_samples)
            row["error_inputs"] = check_error_inputs(ops[key], DEVICE, backend.synchronize)
            if row["class"] in ("agree", "differ") and not row.pop("random", False):
                row["variants"] = check_variants(ops[key], max_samples, DEVICE,
                                                 backend.synchronize)
        except Exception as error:  # a bug of this harness, or an op raising oddly
            row = {"op": key, "class": "error", "detail": "harness: " + first_line(error),
                   "fallback": [], "samples": 0, "dtypes": []}
        out.write(json.dumps({"result": row}) + "\n")
    out.close()


def _worker_command(max_samples: int) -> list[str]:
    """How a worker process of this run starts (conformance_workers adds its result pipe)."""
    return [sys.executable, *(["-S"] if sys.flags.no_site else []), os.path.abspath(__file__),
            "--backend", BACKEND, "--device", DEVICE, "--samples", str(max_samples)]


def main(argv: list[str] | None = None) -> int:
    global BACKEND, DEVICE
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write the Markdown table here")
    parser.add_argument("--samples", type=int, default=int(os.environ.get(
        "CONFORMANCE_SAMPLES", DEFAULT_SAMPLES)), help="samples per op and dtype")
    parser.add_argument("--ops", nargs="*", help="only these ops (name[.variant])")
    parser.add_argument("--backend", default=BACKEND,
                        help="the backend's package (default: $CONFORMANCE_BACKEND or torch_sim)")
    parser.add_argument("--device", default=DEVICE,
                        help="its device type (default: $CONFORMANCE_DEVICE or sim)")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    BACKEND, DEVICE = args.backend, args.device
    if args.worker is not None:
        worker_main(args.worker, args.samples)
        return 0

    started = time.monotonic()
    under_bazel = "TEST_TARGET" in os.environ
    shards = int(os.environ.get("TEST_TOTAL_SHARDS", "1"))
    shard = int(os.environ.get("TEST_SHARD_INDEX", "0"))
    if "TEST_SHARD_STATUS_FILE" in os.environ:
        Path(os.environ["TEST_SHARD_STATUS_FILE"]).touch()

    # The first worker lists op_db; the parent never imports torch or loads the device.
    command = _worker_command(args.samples)
    first, all_keys = start_worker(command)
    if args.ops:
        unknown = sorted(set(args.ops) - set(all_keys))
        if unknown:
            parser.error(f"unknown ops: {unknown}")
        all_keys = [k for k in all_keys if k in args.ops]
    keys = all_keys[shard::shards]
    print(f"op_db: {len(all_keys)} OpInfos; this run: {len(keys)} (shard {shard + 1} of "
          f"{shards}), first {args.samples} samples per op for float32 and one integer "
          "dtype", flush=True)

    rows = run_all(keys, command, OP_TIMEOUT_S, first)
    elapsed = time.monotonic() - started

    known = read_known_differences(KNOWN_DIFFERENCES, DEVICE)
    counts = collections.Counter(r["class"] for r in rows)
    notes = [
        f"torch op_db OpInfos on the `{DEVICE}` device against the CPU: shard {shard + 1} of "
        f"{shards}, {len(rows)} ops, the first {args.samples} sample inputs per op for float32 "
        "and one integer dtype (int64 first), generated on the CPU.",
        f"Wall time {elapsed:.0f} s.",
    ]
    title = f"OpInfo conformance: {DEVICE} vs CPU"
    table = markdown(rows, title, notes)
    outputs = []
    if args.out:
        outputs.append(Path(args.out))
    if os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR"):
        suffix = "" if shards == 1 else f".shard-{shard + 1}-of-{shards}"
        name = f"op_conformance{suffix}.md"
        outputs.append(Path(os.environ["TEST_UNDECLARED_OUTPUTS_DIR"]) / name)
    for path in outputs:
        path.write_text(table)
        print(f"table: {path}")

    print("counts: " + ", ".join(f"{c} {counts.get(c, 0)}" for c in CLASSES)
          + f" (of {len(rows)} ops; {elapsed:.0f} s)")
    for r in rows:
        if r["class"] in ("differ", "crash"):
            mark = " (known)" if r["op"] in known else ""
            print(f"  {r['class']}{mark}: {r['op']}: {r['detail']}")
    print(f"errors (allowed: ops the {DEVICE} device cannot run yet): {counts.get('error', 0)}")

    failures = []
    attempted = {r["op"] for r in rows}
    if attempted != set(keys):
        failures.append(f"ops not attempted: {sorted(set(keys) - attempted)}")
    failures += [f"{r['op']} crashed the process and is not in {KNOWN_DIFFERENCES.name}: "
                 f"{r['detail']}" for r in rows if r["class"] == "crash" and r["op"] not in known]
    failures += [f"{r['op']} differs from the CPU and is not in {KNOWN_DIFFERENCES.name}: "
                 f"{r['detail']}" for r in rows if r["class"] == "differ" and r["op"] not in known]
    failures += [f"{r['op']} is in {KNOWN_DIFFERENCES.name} but now agrees: remove it"
                 for r in rows if r["op"] in known and r["class"] == "agree"
                 and row_variants(r)[0] == row_variants(r)[1]]
    for r in rows:
        passed, total, mismatch = row_error_inputs(r)
        if passed != total:
            failures.append(f"{r['op']}: {passed} of {total} error_inputs raise as stock expects: "
                            + mismatch)
        agreed, checks, variant_mismatch = row_variants(r)
        if agreed != checks and r["op"] not in known:
            failures.append(f"{r['op']}: {agreed} of {checks} noncontiguous / in-place / gradient "
                            f"checks agree and it is not in {KNOWN_DIFFERENCES.name}: "
                            + variant_mismatch)
    for failure in failures:
        print("FAIL: " + failure)
    if under_bazel or not args.out:
        return 1 if failures else 0
    return 0  # script mode with --out: a report, not a verdict


if __name__ == "__main__":
    sys.exit(main())
