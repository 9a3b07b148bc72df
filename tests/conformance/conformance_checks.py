"""What the OpInfo conformance run checks of an op beyond its values (op_conformance.py):
its error_inputs, its noncontiguous samples, in-place variant and gradients, each as the
upstream test of the same thing does it, and the tolerances and skips the OpInfo gives
those tests.
"""

from __future__ import annotations

from collections.abc import Callable

from conformance_values import compare, first_line, to_cpu, to_device


def tolerance(op: object, dtype: object) -> tuple[float, float] | None:
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


def stock_skips(op: object, cls_name: str, test_name: str, device: str) -> bool:
    """Whether the OpInfo marks upstream's test `cls_name.test_name` skipped or failing on
    the device (a DecorateInfo that is not only a tolerance)."""
    from torch.testing._internal.common_device_type import precisionOverride, toleranceOverride
    from torch.testing._internal.opinfo.core import DecorateInfo

    tolerances = (precisionOverride, toleranceOverride)
    for info in getattr(op, "decorators", ()) or ():
        if (isinstance(info, DecorateInfo)
                and info.is_active(cls_name, test_name, device, None, {})
                and not all(isinstance(d, tolerances) for d in info.decorators)):
            return True
    return False


def check_error_inputs(op: object, device: str,
                       synchronize: Callable[[], None]) -> tuple[int, int, str]:
    """Runs the OpInfo's error_inputs on the device as upstream's test_errors does.

    Returns (inputs that raised the expected type and message, inputs, the first mismatch).
    """
    import re

    if op.error_inputs_func is None or stock_skips(op, "TestCommon", "test_errors", device):
        return 0, 0, ""
    passed, total, first = 0, 0, ""
    try:
        error_inputs = list(op.error_inputs(device))
    except Exception as error:
        return 0, 1, "error_inputs: " + first_line(error)
    for error_input in error_inputs:
        sample = error_input.sample_input
        total += 1
        try:
            out = op(sample.input, *sample.args, **sample.kwargs)
            synchronize()
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


def detached_on(obj: object, device: str) -> object:
    """`obj`'s tensors as leaves on `device` that keep their requires_grad."""
    import torch
    from torch.utils._pytree import tree_map

    def move(x: object) -> object:
        if isinstance(x, torch.Tensor):
            return x.detach().to(device).requires_grad_(x.requires_grad)
        return x

    return tree_map(move, obj)


def gradients(op: object, sample: object) -> object:
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


def check_variants(op: object, max_samples: int, device: str,
                   synchronize: Callable[[], None]) -> tuple[int, int, str]:
    """Noncontiguous samples, the in-place variant and first-order gradients on the device
    against the CPU (float32; the caller passes only ops whose values are comparable), as
    upstream's test_noncontiguous_samples, test_variant_consistency_eager and
    test_compare_cpu-style gradient checks do.

    Returns (checks that agreed, checks, the first mismatch). A variant the CPU itself
    rejects for a sample (an in-place op that would need type promotion) is not a check.
    """
    import torch

    if torch.float32 not in op.supported_dtypes("cpu") & op.supported_dtypes(device):
        return 0, 0, ""
    tolerance_f32 = tolerance(op, torch.float32)
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
            actual = to_cpu(run(device))
            synchronize()
            compare(actual, expected, tolerance_f32)
            passed += 1
        except Exception as error:
            if not first:
                first = f"{kind} sample {index}: {first_line(error)}"

    def call(sample: object, device: str, fn: Callable) -> object:
        moved = to_device((sample.input, sample.args, sample.kwargs), device)
        return sample.output_process_fn_grad(fn(moved[0], *moved[1], **moved[2]))

    noncontiguous = not stock_skips(op, "TestCommon", "test_noncontiguous_samples", device)
    inplace = None if stock_skips(op, "TestCommon", "test_variant_consistency_eager", device) else (
        op.get_inplace())
    samples = op.sample_inputs("cpu", torch.float32, requires_grad=False)
    for index, sample in zip(range(max_samples), samples, strict=False):
        if noncontiguous:
            strided = sample.noncontiguous()
            check("noncontiguous", index, lambda d, s=strided: call(s, d, op))
        if inplace is not None:
            check("in-place", index, lambda d, s=sample: call(s, d, lambda x, *a, **k: inplace(
                x.clone(), *a, **k)))
    if (op.supports_autograd and torch.float32 in op.supported_backward_dtypes(device)
            and not stock_skips(op, "TestGradients", "test_fn_grad", device)):
        samples = op.sample_inputs("cpu", torch.float32, requires_grad=True)
        for index, sample in zip(range(max_samples), samples, strict=False):
            check("gradient", index, lambda d, s=sample: gradients(op, type(s)(
                detached_on(s.input, d), args=detached_on(s.args, d),
                kwargs=detached_on(s.kwargs, d), output_process_fn_grad=s.output_process_fn_grad)))
    return passed, total, first
