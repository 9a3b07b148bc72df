"""The torch every entry of the ledger was written and tested against."""

from __future__ import annotations

import os
from types import ModuleType

# The pinned stock wheel (MODULE.bazel / the lock file): the CPU-only torch torch_cuda
# is compiled against. Its C++ ABI and the Python internals the entries touch are this
# version's; another one is refused before the backend library is loaded.
PINNED_TORCH_VERSION = "2.13.0+cpu"


class TorchVersionMismatchError(ImportError):
    """torch is not the version torch_cuda was built for."""


class PatchNoLongerAppliesError(RuntimeError):
    """A ledger entry's probe found torch other than the entry expects."""


def check_torch_version(found: str | None, *, entry: str = "torch_cuda") -> None:
    if found != PINNED_TORCH_VERSION:
        raise TorchVersionMismatchError(
            f"{entry}: torch {found} is installed, but torch_cuda was built for and patches "
            f"torch {PINNED_TORCH_VERSION}; install torch=={PINNED_TORCH_VERSION} or a "
            f"torch_cuda built for torch {found}."
        )


def probe(entry: str, ok: bool, what: str, found: str) -> None:
    if not ok:
        raise PatchNoLongerAppliesError(
            f"torch_patches.{entry} no longer applies to this torch "
            f"(expected {what}; found {found}; the entry was written for torch "
            f"{PINNED_TORCH_VERSION}). Re-check the entry against this torch."
        )


def torch_source(torch_C: ModuleType, *path: str) -> str:
    """The text of torch's own Python file torch/<path>, for an entry's probe."""
    with open(os.path.join(os.path.dirname(torch_C.__file__), *path), encoding="utf-8") as f:
        return f.read()
