"""The main job's short demo: the stock CPU-only torch and torch_cuda side by side.

`tools/bazel run //third_device/torch_cuda:demo` prints what torch_cuda was built for and
what this machine can run, then trains the GPT-2-shaped decoder a few steps on the CUDA
key against the CPU (demo_training.py): on a GPU machine on the real variant (after the
elementwise kernel's round trip), without one on the simulated variant, in a process of
its own (one process loads one _CUDAC).
"""

from __future__ import annotations

import os
import subprocess
import sys

# ruff: noqa: I001  (torch_cuda before torch: activates the backend as an installed .pth would)
import torch_cuda
import torch

import _CUDAC

_ROUND_TRIP_ELEMENTS = 1 << 20


def main() -> int:
    info = torch_cuda.build_info()
    print(f"torch (stock)         {torch.__version__}, built with CUDA: {torch.version.cuda}")
    print(f"torch_cuda CUDA       {info.cuda_version} (cudart {info.cudart_version})")
    print(f"kernel architectures  {', '.join(info.archs)}")
    print(f"dispatch key          {info.device_type}")
    stamp = _CUDAC.build_info()
    print(f"built against torch   {stamp['torch_version']}, revision {stamp['git_revision']}")
    count = torch_cuda.core.device_count()
    if count == 0:
        print(f"CUDA devices          0 ({_CUDAC.unavailable_reason()})")
        print("no GPU here: the kernels were compiled for the architectures above, not run;")
        print("the training step runs on the simulated variant")
        sys.stdout.flush()
        return train_on_simulated_variant()
    for device in range(count):
        props = _CUDAC.get_device_properties(device)
        error = _CUDAC.device_add_round_trip(device, _ROUND_TRIP_ELEMENTS)
        print(f"cuda:{device}                {props}; add kernel max abs error {error:g}")
        if error != 0.0:
            print("the kernel's result differs from the host's")
            return 1
    import demo_training

    return demo_training.run()


def train_on_simulated_variant() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    # The simulated _CUDAC ahead of the real one (both sit in this binary's runfiles).
    path = [os.path.join(here, "simulated"), *sys.path]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "TORCH_CUDA_ACTIVATE": "0"}
    script = os.path.join(here, "demo_training.py")
    return subprocess.run([sys.executable, script], env=env, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main())
