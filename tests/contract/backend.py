"""The backend under test, for the contract suite.

CONTRACT_BACKEND names the backend's Python package (torch_sim, torch_cuda); importing it
installs torch.<device>. CONTRACT_DEVICE overrides the device name when the package has
no NAME attribute. Tests use only torch's API through the names below.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import unittest

import torch

PACKAGE = os.environ.get("CONTRACT_BACKEND", "torch_sim")
backend = importlib.import_module(PACKAGE)
DEVICE: str = os.environ.get("CONTRACT_DEVICE") or getattr(
    backend, "NAME", PACKAGE.replace("torch_", "")
)


class _DeviceModule:
    """torch.<device>, then the backend package for what stock torch.<device> lacks
    (torch.cuda has no CPU-fallback policy or counters; torch_cuda provides them)."""

    def __init__(self, device_module: object, package: object) -> None:
        self._device_module = device_module
        self._package = package

    def __getattr__(self, name: str) -> object:
        try:
            return getattr(self._device_module, name)
        except AttributeError:
            return getattr(self._package, name)


mod = _DeviceModule(getattr(torch, DEVICE), backend)


def device(index: int = 0) -> torch.device:
    return torch.device(DEVICE, index)


def slow_work(milliseconds: float) -> None:
    """Queues work that keeps the current stream busy for about `milliseconds`."""
    if hasattr(mod, "_sleep") and DEVICE != "cuda":
        mod._sleep(milliseconds)
    else:  # torch.cuda._sleep spins for a number of GPU cycles (~1 GHz or more)
        mod._sleep(int(milliseconds * 2_000_000))


# A GPU's device-side assert leaves its context unusable for the rest of the process (every
# later call fails); simulated devices stay usable. Tests that trigger one run it in a child.
STICKY_DEVICE_ERRORS = PACKAGE == "torch_cuda" and backend.build_info().variant != "simulated"


def run_in_child(code: str, **env: str) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter with the backend loaded as here (`backend`
    importable, its names in scope), this environment plus `env`; returns the finished
    process, its output captured."""
    script = "from backend import *\nimport torch\n" + code
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **env}
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def requires_devices(count: int):
    return unittest.skipIf(mod.device_count() < count, f"needs {count} {DEVICE} devices")


def main() -> None:
    import sys

    unittest.main(argv=sys.argv[:1], verbosity=2)
