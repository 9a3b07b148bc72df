"""The example extension built by setuptools: a setup.py with NewDeviceCppExtension and
BuildExtension (as the RFC names them), `setup.py build_ext` in a fresh interpreter (the
pinned setuptools), then the built library loaded here and checked."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

import bias_gelu
import bias_gelu_checks

SETUP_PY = """
from setuptools import setup
from torch_cuda.cpp_extension import BuildExtension, NewDeviceCppExtension

setup(
    name="bias_gelu_ext",
    ext_modules=[NewDeviceCppExtension("bias_gelu_ext_lib", ["bias_gelu.cu"],
                                       extra_compile_args={"cxx": ["-O1"], "nvcc": []})],
    cmdclass={"build_ext": BuildExtension},
)
"""


def build() -> Path:
    project = Path(os.environ["TEST_TMPDIR"]) / "bias_gelu_project"
    project.mkdir()
    shutil.copy(os.environ["BIAS_GELU_SOURCE"], project / "bias_gelu.cu")
    (project / "setup.py").write_text(SETUP_PY)
    # The build runs in the project: the compiler's runfiles path made absolute.
    env = {**os.environ, "CXX": os.path.abspath(os.environ["CXX"])}
    result = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--build-lib", "out", "--build-temp", "tmp"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"setup.py build_ext failed:\n{result.stdout}{result.stderr}")
    (library,) = (project / "out").glob("bias_gelu_ext_lib*.so")
    return library


bias_gelu.load(str(build()))


class SetuptoolsBuiltExtension(bias_gelu_checks.BiasGeluChecks):
    pass


if __name__ == "__main__":
    unittest.main()
