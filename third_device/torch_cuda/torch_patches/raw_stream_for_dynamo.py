"""Ledger entry: ``torch._C._cuda_getCurrentRawStream`` for torch._dynamo.

What: provides ``_cuda_getCurrentRawStream(device)`` (the current stream's runtime
    handle as an int) among the torch._C names.
Why: the first optimizer step imports torch._dynamo (``torch._dynamo.graph_break`` /
    ``_disable_dynamo`` in torch/optim), whose device_interface.py does ``from torch._C
    import _cuda_getCurrentRawStream`` when ``torch.cuda._is_compiled()``; without it the
    step fails with ImportError.
Upstream: dynamo's CUDA device interface asking torch.cuda (or the accelerator API)
    for the raw stream instead of importing a torch._C name.
"""

from __future__ import annotations

from types import ModuleType

from torch_cuda.torch_patches._pinned import check_torch_version, probe, torch_source

NAME = "raw_stream_for_dynamo"
WHAT = "provides torch._C._cuda_getCurrentRawStream"
WHY = "the first optimizer step imports torch._dynamo, whose CUDA interface imports it"
UPSTREAM = "torch._dynamo.device_interface reading the raw stream through torch.cuda"


def check(torch_version: str | None, torch_C: ModuleType) -> None:
    check_torch_version(torch_version, entry=NAME)
    text = torch_source(torch_C, "_dynamo", "device_interface.py")
    probe(
        NAME,
        "from torch._C import _cuda_getCurrentRawStream" in text,
        "torch/_dynamo/device_interface.py importing _cuda_getCurrentRawStream",
        "no such import",
    )
