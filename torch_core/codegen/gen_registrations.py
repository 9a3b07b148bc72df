"""Generates a backend's operator registrations from the pinned wheel's own torchgen.

PyTorch's CUDA build registers stock ATen's device-generic operators on the CUDA key with
a generated RegisterCUDA.cpp: wrappers that build the structured kernel's output (device
guard, allocation, resize, in-place checks) and call the same `at::native` functions the
CPU key calls, which in turn call the DispatchStubs for the tensor's device. This script
does the same for an out-of-tree backend, for the operators it names: it reads the
wheel's `native_functions.yaml`, keeps each named operator only if its kernel for the
backend's key would be the CPU one (the same function, or a ufunc whose CPU class calls
its stub for any device), and runs torchgen's RegisterDispatchKey on that index.

The operator list names groups by their functional overload ("add.Tensor", "sin"): the
group's in-place and out= variants come with it. It states which stubs the engine fills:
an operator whose stubs are empty must stay on the CPU fallback, so nothing is registered
by default.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from torchgen import dest
from torchgen.gen import get_grouped_native_functions, parse_native_yaml
from torchgen.model import (
    BackendIndex,
    BackendMetadata,
    DispatchKey,
    NativeFunction,
    NativeFunctionsGroup,
    OperatorName,
)
from torchgen.selective_build.selector import SelectiveBuilder
from torchgen.utils import Target, concatMap

# torchgen writes CUDA-key code with stock's CUDA-only helpers; the pinned CPU wheel has
# none of their headers, so each is replaced by the device-generic equivalent (what
# torchgen itself emits for CompositeExplicitAutogradNonFunctional).
_CUDA_ONLY_NAMES = {
    "c10::cuda::OptionalCUDAGuard": "c10::OptionalDeviceGuard",
    "at::detail::empty_strided_cuda": "at::empty_strided",
    "at::detail::empty_cuda": "at::empty",
}


def _functions(g: NativeFunction | NativeFunctionsGroup) -> list[NativeFunction]:
    return [g] if isinstance(g, NativeFunction) else list(g.functions())


def _root_name(g: NativeFunction | NativeFunctionsGroup) -> str:
    """How the operator list names a group: its functional overload ("add.Tensor", "sin")."""
    return str(g.func.name if isinstance(g, NativeFunction) else g.functional.func.name)


def _device_generic_metadata(
    f: NativeFunction, cpu: BackendIndex, cuda: BackendIndex
) -> BackendMetadata | None:
    """The CPU kernel of `f` when CUDA runs that same device-generic code, else None."""
    cpu_kernel = cpu.get_kernel(f)
    cuda_kernel = cuda.get_kernel(f)
    if cpu_kernel is None or cuda_kernel is None:
        return None
    same = cpu_kernel.kernel == cuda_kernel.kernel
    # ufunc operators: ufunc_add_CPU and ufunc_add_CUDA are the per-device classes of one
    # structured kernel; the CPU class dispatches through the stub on the iterator's device.
    ufunc = (
        cpu_kernel.kernel.endswith("_CPU")
        and cuda_kernel.kernel == cpu_kernel.kernel[: -len("_CPU")] + "_CUDA"
    )
    return cpu_kernel if same or ufunc else None


def build_index(
    grouped: Sequence[NativeFunction | NativeFunctionsGroup],
    indices: dict[DispatchKey, BackendIndex],
    wanted: set[str],
    cuda_kernels: set[str],
) -> tuple[BackendIndex, list[NativeFunction | NativeFunctionsGroup], set[str]]:
    """The backend index of the wanted groups: device-generic ones with their CPU kernel,
    `cuda_kernels` ones with their CUDA kernel (which the backend's library defines)."""
    cpu, cuda = indices[DispatchKey.CPU], indices[DispatchKey.CUDA]
    index: dict[OperatorName, BackendMetadata] = {}
    chosen: list[NativeFunction | NativeFunctionsGroup] = []
    found: set[str] = set()
    for g in grouped:
        root = _root_name(g)
        if root not in wanted and root not in cuda_kernels:
            continue
        if root in cuda_kernels:
            generic = {f.func.name: cuda.get_kernel(f) for f in _functions(g)}
        else:
            generic = {f.func.name: _device_generic_metadata(f, cpu, cuda) for f in _functions(g)}
        if isinstance(g, NativeFunctionsGroup) and g.structured:
            # A structured group is registered whole, from its out= kernel, or not at all.
            if generic.get(g.out.func.name) is None:
                continue
        for name, metadata in generic.items():
            if metadata is not None:
                index[name] = metadata
        found.add(_root_name(g))
        chosen.append(g)
    backend_index = BackendIndex(
        dispatch_key=DispatchKey.CUDA,
        use_out_as_primary=True,
        device_guard=True,
        external=False,
        index=index,
    )
    return backend_index, chosen, found


def render(
    backend_index: BackendIndex,
    chosen: Sequence[NativeFunction | NativeFunctionsGroup],
    dispatch_key: str,
) -> str:
    selector = SelectiveBuilder.get_nop_selector()

    def generator(target: Target) -> dest.RegisterDispatchKey:
        return dest.RegisterDispatchKey(
            backend_index,
            target,
            selector,
            rocm=False,
            symint=True,
            class_method_name=None,
            skip_dispatcher_op_registration=False,
        )

    definitions = list(concatMap(generator(Target.ANONYMOUS_DEFINITION), chosen))
    registrations = list(concatMap(generator(Target.REGISTRATION), chosen))
    includes = sorted(
        {
            f"#include <ATen/ops/{f.root_name}_native.h>"
            for g in chosen
            for f in _functions(g)
        }
        | {f"#include <ATen/ops/{f.root_name}.h>" for g in chosen for f in _functions(g)}
    )
    body = "\n".join([*dest.gen_registration_helpers(backend_index), *definitions])
    for cuda_name, generic_name in _CUDA_ONLY_NAMES.items():
        body = body.replace(cuda_name, generic_name)
    body = body.replace("c10::DeviceType::CUDA", f"c10::DeviceType::{dispatch_key}")
    newline = "\n  "
    return f"""\
// @generated by torch_core/codegen/gen_registrations.py from the pinned torch wheel's
// native_functions.yaml and torchgen: do not edit.
#include <ATen/Context.h>
#include <ATen/Functions.h>
#include <ATen/TensorUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/op_registration/adaption.h>
#include <ATen/native/Resize.h>
#include <c10/core/DeviceGuard.h>
#include <c10/macros/Macros.h>
#include <c10/util/OptionalArrayRef.h>
#include <torch/library.h>
{chr(10).join(includes)}

#include "torch_core/csrc/aten/composite/convolution_registration.h"

namespace at {{
namespace {{

{body}

TORCH_LIBRARY_IMPL(aten, {dispatch_key}, m) {{
  {newline.join(r.strip() for r in registrations)}
  torch_core::composite::register_convolution(m, c10::DeviceType::{dispatch_key});
}}

}}  // namespace
}}  // namespace at
"""


def read_operator_list(path: Path) -> set[str]:
    names = set()
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.add(line)
    return names


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--native-functions", type=Path, required=True)
    parser.add_argument("--tags", type=Path, required=True)
    parser.add_argument("--dispatch-key", choices=["CUDA", "PrivateUse1"], required=True)
    parser.add_argument(
        "--operators",
        type=Path,
        action="append",
        required=True,
        help="operator list, one a line (repeatable: the engine's, then the backend's own)",
    )
    parser.add_argument(
        "--cuda-kernel-operators",
        type=Path,
        help="operators registered with their CUDA kernel, which the backend defines",
    )
    parser.add_argument(
        "--cuda-key-only-operators",
        type=Path,
        help="operators registered with their CUDA kernel on the CUDA key only (kernels that "
        "call a stub's CUDA slot by name, or pair with one that does)",
    )
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args(argv)

    parsed = parse_native_yaml(str(args.native_functions), str(args.tags))
    grouped = get_grouped_native_functions(parsed.native_functions)
    wanted = set().union(*(read_operator_list(path) for path in args.operators))
    cuda_kernels = set()
    if args.cuda_kernel_operators:
        cuda_kernels = read_operator_list(args.cuda_kernel_operators)
    if args.cuda_key_only_operators and args.dispatch_key == "CUDA":
        cuda_kernels |= read_operator_list(args.cuda_key_only_operators)
    indices = parsed.backend_indices
    backend_index, chosen, found = build_index(grouped, indices, wanted, cuda_kernels)
    missing = sorted((wanted | cuda_kernels) - found)
    if missing:
        # A listed name that is not a device-generic operator is a mistake in the list:
        # say which, rather than leave it on the fallback without a word.
        print(
            f"gen_registrations: unknown operators, or not device-generic: {', '.join(missing)}",
            file=sys.stderr,
        )
        return 1
    text = render(backend_index, chosen, args.dispatch_key)
    args.output.write_text(re.sub(r"\n{3,}", "\n\n", text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
