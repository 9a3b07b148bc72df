"""Reproduces an installed torch_cuda in Bazel tests, with no line in the test itself.

An installed torch_cuda wheel puts torch_cuda_activate.pth in site-packages; `site`
runs its `import _torch_cuda_activate` at interpreter start. Bazel's py_test puts its
import paths on PYTHONPATH, where `site` reads no .pth files, but it does import
`sitecustomize` from there at the same point of start-up. So this file does what the
.pth line does (TORCH_CUDA_ACTIVATE=0 still opts out: the module reads it).
"""

import _torch_cuda_activate  # noqa: F401
