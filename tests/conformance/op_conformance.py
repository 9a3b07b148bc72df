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
with torch and the backend's package importable (PYTHONPATH). The values' handling is in
conformance_values.py, the table and the known differences in conformance_report.py.
"""

from __future__ import annotations

import argparse
import collections
import functools
import importlib
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

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


def _tolerance(op: object, dtype: object) -> tuple[float, float] | None:
    """(rtol, atol) from the OpInfo's toleranceOverride for test_compare_cpu, or None."""
    from torch.testing._internal.common_device_type import toleranceOverride

    best = None
    for info in getattr(op, "decorators", ()) or ():
        if getattr(info, "test_name", None) not in (None, "test_compare_cpu"):
            continue
        if getattr(info, "cls_name", None) not in (None, "TestCommon"):
            continue
        for decorator in getattr(info, "decorators", ()) or ():
            if isinstance(decorator, toleranceOverride) and dtype in decorator.d:
                tol = decorator.d[dtype]
                rtol, atol = tol.rtol, tol.atol
                if best is None or (rtol, atol) > best:
                    best = (rtol, atol)
    return best


def _stock_skips(op: object, cls_name: str, test_name: str) -> bool:
    """Whether the OpInfo marks upstream's test `cls_name.test_name` skipped or failing on
    the device (a DecorateInfo that is not only a tolerance)."""
    from torch.testing._internal.common_device_type import precisionOverride, toleranceOverride
    from torch.testing._internal.opinfo.core import DecorateInfo

    tolerances = (precisionOverride, toleranceOverride)
    for info in getattr(op, "decorators", ()) or ():
        if (isinstance(info, DecorateInfo)
                and info.is_active(cls_name, test_name, DEVICE, None, {})
                and not all(isinstance(d, tolerances) for d in info.decorators)):
            return True
    return False


def check_error_inputs(op: object) -> tuple[int, int, str]:
    """Runs the OpInfo's error_inputs on the device as upstream's test_errors does.

    Returns (inputs that raised the expected type and message, inputs, the first mismatch).
    """
    import re

    if op.error_inputs_func is None or _stock_skips(op, "TestCommon", "test_errors"):
        return 0, 0, ""
    passed, total, first = 0, 0, ""
    try:
        error_inputs = list(op.error_inputs(DEVICE))
    except Exception as error:
        return 0, 1, "error_inputs: " + first_line(error)
    for error_input in error_inputs:
        sample = error_input.sample_input
        total += 1
        try:
            out = op(sample.input, *sample.args, **sample.kwargs)
            _backend().synchronize()
            # test_errors asserts the result is not NotImplemented: that fails it too.
            raised = AssertionError("returned NotImplemented") if out is NotImplemented else None
        except Exception as error:
            raised = error
        if (isinstance(raised, error_input.error_type)
                and re.search(error_input.error_regex, str(raised))):
            passed += 1
        elif not first:
            expected = f"{error_input.error_type.__name__} /{error_input.error_regex}/"
            got = "nothing" if raised is None else first_line(raised)
            first = f"error input {total - 1}: expected {expected}, raised {got}"[:300]
    return passed, total, first


def _detached_on(obj: object, device: str) -> object:
    """`obj`'s tensors as leaves on `device` that keep their requires_grad."""
    import torch
    from torch.utils._pytree import tree_map

    def move(x: object) -> object:
        if isinstance(x, torch.Tensor):
            return x.detach().to(device).requires_grad_(x.requires_grad)
        return x

    return tree_map(move, obj)


def _gradients(op: object, sample: object) -> object:
    """d(sum of outputs * fixed cotangents) / d(inputs that require grad), None when the
    op has no differentiable output for this sample."""
    import torch
    from torch.utils._pytree import tree_leaves

    inputs = [t for t in tree_leaves((sample.input, sample.args, sample.kwargs))
              if isinstance(t, torch.Tensor) and t.requires_grad]
    out = sample.output_process_fn_grad(op(sample.input, *sample.args, **sample.kwargs))
    outputs = [t for t in tree_leaves(out) if isinstance(t, torch.Tensor) and t.requires_grad]
    if not inputs or not outputs:
        return None
    generator = torch.Generator().manual_seed(2)
    cotangents = [torch.randn(o.shape, generator=generator, dtype=o.dtype).to(o.device)
                  for o in outputs]
    return torch.autograd.grad(outputs, inputs, cotangents, allow_unused=True)


def check_variants(op: object, max_samples: int) -> tuple[int, int, str]:
    """Noncontiguous samples, the in-place variant and first-order gradients on the device
    against the CPU (float32; the caller passes only ops whose values are comparable), as
    upstream's test_noncontiguous_samples, test_variant_consistency_eager and
    test_compare_cpu-style gradient checks do.

    Returns (checks that agreed, checks, the first mismatch). A variant the CPU itself
    rejects for a sample (an in-place op that would need type promotion) is not a check.
    """
    import torch

    if torch.float32 not in op.supported_dtypes("cpu") & op.supported_dtypes(DEVICE):
        return 0, 0, ""
    tolerance = _tolerance(op, torch.float32)
    passed, total, first = 0, 0, ""

    def check(kind: str, index: int, run: Callable[[str], object]) -> None:
        nonlocal passed, total, first
        try:
            torch.manual_seed(0)
            expected = to_cpu(run("cpu"))
        except Exception:
            return
        if expected is None:
            return
        total += 1
        try:
            torch.manual_seed(0)
            actual = to_cpu(run(DEVICE))
            _backend().synchronize()
            compare(actual, expected, tolerance)
            passed += 1
        except Exception as error:
            if not first:
                first = f"{kind} sample {index}: {first_line(error)}"

    def call(sample: object, device: str, fn: Callable) -> object:
        moved = to_device((sample.input, sample.args, sample.kwargs), device)
        return sample.output_process_fn_grad(fn(moved[0], *moved[1], **moved[2]))

    noncontiguous = not _stock_skips(op, "TestCommon", "test_noncontiguous_samples")
    inplace = None if _stock_skips(op, "TestCommon", "test_variant_consistency_eager") else (
        op.get_inplace())
    samples = op.sample_inputs("cpu", torch.float32, requires_grad=False)
    for index, sample in zip(range(max_samples), samples, strict=False):
        if noncontiguous:
            strided = sample.noncontiguous()
            check("noncontiguous", index, lambda d, s=strided: call(s, d, op))
        if inplace is not None:
            check("in-place", index, lambda d, s=sample: call(s, d, lambda x, *a, **k: inplace(
                x.clone(), *a, **k)))
    if (op.supports_autograd and torch.float32 in op.supported_backward_dtypes(DEVICE)
            and not _stock_skips(op, "TestGradients", "test_fn_grad")):
        samples = op.sample_inputs("cpu", torch.float32, requires_grad=True)
        for index, sample in zip(range(max_samples), samples, strict=False):
            check("gradient", index, lambda d, s=sample: _gradients(op, type(s)(
                _detached_on(s.input, d), args=_detached_on(s.args, d),
                kwargs=_detached_on(s.kwargs, d), output_process_fn_grad=s.output_process_fn_grad)))
    return passed, total, first


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
                    compare(actual, expected, _tolerance(op, dtype))
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
            row["error_inputs"] = check_error_inputs(ops[key])
            if row["class"] in ("agree", "differ") and not row.pop("random", False):
                row["variants"] = check_variants(ops[key], max_samples)
        except Exception as error:  # a bug of this harness, or an op raising oddly
            row = {"op": key, "class": "error", "detail": "harness: " + first_line(error),
                   "fallback": [], "samples": 0, "dtypes": []}
        out.write(json.dumps({"result": row}) + "\n")
    out.close()


# --------------------------------------------------------------------------------------
# Parent side: feeds ops to workers, survives their crashes.
# --------------------------------------------------------------------------------------


class _Worker:
    def __init__(self, max_samples: int):
        read_fd, write_fd = os.pipe()
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, *(["-S"] if sys.flags.no_site else []),
             os.path.abspath(__file__), "--worker", str(write_fd),
             "--backend", BACKEND, "--device", DEVICE, "--samples", str(max_samples)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=self.stderr,
            pass_fds=(write_fd,), text=True)
        os.close(write_fd)
        self.results = os.fdopen(read_fd, "r")
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.results, selectors.EVENT_READ)
        self.buffer = ""

    def read(self, timeout: float) -> dict | None:
        """The next event; {"eof": True} when the worker died; None on timeout."""
        deadline = time.monotonic() + timeout
        while "\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                return None
            chunk = os.read(self.results.fileno(), 65536).decode()
            if not chunk:
                return {"eof": True}
            self.buffer += chunk
        line, self.buffer = self.buffer.split("\n", 1)
        return json.loads(line)

    def send(self, key: str) -> None:
        self.process.stdin.write(key + "\n")
        self.process.stdin.flush()

    def stop(self) -> str:
        """Ends the worker; returns how it ended and the tail of its stderr."""
        if self.process.poll() is None:
            try:
                self.process.stdin.close()
                self.process.wait(timeout=10)
            except Exception:
                self.process.kill()
                self.process.wait()
        code = self.process.returncode
        self.stderr.seek(0)
        tail = self.stderr.read().decode(errors="replace").strip().splitlines()[-3:]
        how = f"signal {-code}" if code < 0 else f"exit {code}"
        return how + (": " + " | ".join(tail) if tail else "")


def run_all(keys: list[str], max_samples: int, worker: _Worker | None = None,
            log: Callable[[str], None] = print) -> list[dict]:
    """Runs `keys` in `worker` (started and ready), then in new ones after a crash."""
    rows: dict[str, dict] = {}
    pending = list(keys)
    while pending:
        if worker is None:
            worker = _Worker(max_samples)
            if "ops" not in (worker.read(timeout=600) or {}):
                raise RuntimeError("the conformance worker did not start: " + worker.stop())
        for key in pending:  # the pipe holds them all; the worker reads at its pace
            worker.send(key)
        worker.process.stdin.flush()
        current = None
        while pending:
            event = worker.read(timeout=OP_TIMEOUT_S)
            if event is None or "eof" in event:  # hung on `current`, or died
                hung = event is None
                if hung:
                    worker.process.kill()
                how = worker.stop()
                if current is None:
                    raise RuntimeError("the conformance worker died between ops: " + how)
                rows[current] = {"op": current, "class": "crash", "fallback": [], "samples": 0,
                                 "dtypes": [],
                                 "detail": (f"no result in {OP_TIMEOUT_S:.0f} s"
                                            if hung else "worker died: " + how)}
                log(f"  {current}: crash ({rows[current]['detail']})")
                pending.remove(current)
                worker = None
                break
            if "start" in event:
                current = event["start"]
            elif "result" in event:
                row = event["result"]
                rows[row["op"]] = row
                pending.remove(row["op"])
                current = None
        else:
            worker.stop()
    if worker is not None and worker.process.poll() is None:
        worker.stop()
    return [rows[k] for k in keys]


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
    first = _Worker(args.samples)
    ready = first.read(timeout=600)
    if "ops" not in (ready or {}):
        raise RuntimeError("the conformance worker did not start: " + first.stop())
    all_keys = ready["ops"]
    if args.ops:
        unknown = sorted(set(args.ops) - set(all_keys))
        if unknown:
            parser.error(f"unknown ops: {unknown}")
        all_keys = [k for k in all_keys if k in args.ops]
    keys = all_keys[shard::shards]
    print(f"op_db: {len(all_keys)} OpInfos; this run: {len(keys)} (shard {shard + 1} of "
          f"{shards}), first {args.samples} samples per op for float32 and one integer "
          "dtype", flush=True)

    rows = run_all(keys, args.samples, first)
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
