"""A fresh interpreter for the cases that need one (settings read once at start-up, a
forked or broken process, import-time costs): the tests' one way of starting it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence


def run_python(
    code: str, *, flags: Sequence[str] = (), **env: str
) -> subprocess.CompletedProcess[str]:
    """Runs `code` with this interpreter (after interpreter `flags`), in this environment
    plus `env`; returns the finished process with its output captured as text."""
    return subprocess.run(
        [sys.executable, *flags, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
