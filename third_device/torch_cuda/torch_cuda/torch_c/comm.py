"""torch._C's multi-device copies (stock: torch/csrc/cuda/comm.cpp, bound only in CUDA
builds): broadcast, scatter and gather across CUDA devices, which torch.nn.parallel.comm
and nn.DataParallel call. Written over torch's own copies, which run device to device on
the CUDA key; the argument checks and messages are stock's.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch._utils import (
    _flatten_dense_tensors,
    _reorder_tensors_as,
    _take_tensors,
    _unflatten_dense_tensors,
)


def _cuda(index: int) -> torch.device:
    return torch.device("cuda", index)


def _check_on_cuda(tensors: Sequence[torch.Tensor], what: str) -> None:
    for i, tensor in enumerate(tensors):
        if not tensor.is_cuda:
            raise RuntimeError(
                f"Expected all {what} tensors to be CUDA tensors, but {what} tensor at index "
                f"{i} has device '{tensor.device}'"
            )


def broadcast_out(tensor: torch.Tensor, out_tensors: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    _check_on_cuda(out_tensors, "output")
    for i, out in enumerate(out_tensors):
        if out.shape != tensor.shape:
            raise RuntimeError(
                f"Expected all output tensors to have same shape as the source tensor "
                f"{list(tensor.shape)}, but output tensor at index {i} has shape {list(out.shape)}"
            )
    for out in out_tensors:
        out.copy_(tensor, non_blocking=True)
    return list(out_tensors)


def broadcast(tensor: torch.Tensor, devices: Sequence[int]) -> list[torch.Tensor]:
    # The source's own device gets the source itself, as stock's.
    source = tensor.get_device() if tensor.is_cuda else None
    return [
        tensor if device == source else tensor.to(_cuda(device), copy=True)
        for device in devices
    ]


def broadcast_coalesced(
    tensors: Sequence[torch.Tensor], devices: Sequence[int], buffer_size: int
) -> list[list[torch.Tensor]]:
    if not devices:
        raise RuntimeError("Expected at least one device to broadcast to")
    for tensor in tensors:
        if not tensor.is_cuda or tensor.get_device() != devices[0]:
            raise RuntimeError(f"All tensors must be on devices[0]: {devices[0]}")
    outputs: list[list[torch.Tensor]] = [list(tensors)]
    for device in devices[1:]:
        copies: list[torch.Tensor] = []
        # Small tensors travel together, one flat buffer of up to buffer_size bytes each.
        for chunk in _take_tensors(list(tensors), buffer_size):
            if chunk[0].is_sparse:
                copies.extend(t.to(_cuda(device), copy=True) for t in chunk)
                continue
            flat = _flatten_dense_tensors(chunk).to(_cuda(device))
            copies.extend(_unflatten_dense_tensors(flat, chunk))
        # _take_tensors groups by type; put the copies back in the inputs' order.
        outputs.append(list(_reorder_tensors_as(copies, tensors)))
    return outputs


def _streams_for(
    streams: Sequence[torch.cuda.Stream | None] | None, count: int
) -> list[torch.cuda.Stream | None]:
    if streams is None:
        return [None] * count
    if len(streams) != count:
        raise RuntimeError(
            f"Expected devices and streams to be of same length, but got len(devices) = "
            f"{count} and len(streams) = {len(streams)}"
        )
    return list(streams)


def scatter(
    tensor: torch.Tensor,
    devices: Sequence[int],
    chunk_sizes: Sequence[int] | None,
    dim: int,
    streams: Sequence[torch.cuda.Stream | None] | None,
) -> list[torch.Tensor]:
    if not devices:
        raise RuntimeError("Expected at least one device to scatter to")
    if chunk_sizes is not None:
        if len(chunk_sizes) != len(devices):
            raise RuntimeError(
                f"Expected devices and chunk_sizes to be of same length, but got "
                f"len(chunk_sizes) = {len(chunk_sizes)} and len(devices) = {len(devices)}"
            )
        if sum(chunk_sizes) != tensor.size(dim):
            raise RuntimeError(
                f"Expected chunk sizes to sum to {tensor.size(dim)}, but got sum "
                f"{sum(chunk_sizes)} ({list(chunk_sizes)})"
            )
        chunks = tensor.split_with_sizes(list(chunk_sizes), dim)
    else:
        chunks = tensor.chunk(len(devices), dim)
    # Checked against the devices, as stock: chunk() may give fewer chunks than devices.
    on_streams = _streams_for(streams, len(devices))
    results = []
    for chunk, device, stream in zip(chunks, devices, on_streams, strict=False):
        with torch.cuda.device(device), torch.cuda.stream(stream):
            # No copy when the chunk is on its device already, as stock's copy=false.
            results.append(chunk.to(_cuda(device), non_blocking=True))
    return results


def scatter_out(
    tensor: torch.Tensor,
    out_tensors: Sequence[torch.Tensor],
    dim: int,
    streams: Sequence[torch.cuda.Stream | None] | None,
) -> list[torch.Tensor]:
    if not out_tensors:
        raise RuntimeError("Expected at least one output tensor to scatter to")
    _check_on_cuda(out_tensors, "output")
    sizes = [out.size(dim) for out in out_tensors]
    if sum(sizes) != tensor.size(dim):
        raise RuntimeError(
            f"Total size for output tensors along scatter dim {dim} does not match the "
            f"source tensor size {tensor.size(dim)}"
        )
    on_streams = _streams_for(streams, len(out_tensors))
    for chunk, out, stream in zip(
        tensor.split_with_sizes(sizes, dim), out_tensors, on_streams, strict=True
    ):
        with torch.cuda.device(out.get_device()), torch.cuda.stream(stream):
            out.copy_(chunk, non_blocking=True)
    return list(out_tensors)


def _gathered_shape(tensors: Sequence[torch.Tensor], dim: int) -> tuple[list[int], int]:
    """The concatenation's shape, and `dim` made non-negative."""
    if not tensors:
        raise RuntimeError("Expected at least one tensor to gather from")
    _check_on_cuda(tensors, "input")
    first = tensors[0]
    dim = dim if dim >= 0 else dim + first.dim()
    shape = list(first.shape)
    for i, tensor in enumerate(tensors):
        same = tensor.dim() == first.dim() and all(
            tensor.size(d) == shape[d] for d in range(first.dim()) if d != dim
        )
        if not same:
            raise RuntimeError(
                f"Input tensor at index {i} has invalid shape {list(tensor.shape)}, but "
                f"expected {[*shape[:dim], '*', *shape[dim + 1 :]]}"
            )
    shape[dim] = sum(tensor.size(dim) for tensor in tensors)
    return shape, dim


def _gather_into(tensors: Sequence[torch.Tensor], out: torch.Tensor, dim: int) -> torch.Tensor:
    offset = 0
    for tensor in tensors:
        out.narrow(dim, offset, tensor.size(dim)).copy_(tensor, non_blocking=out.is_cuda)
        offset += tensor.size(dim)
    return out


def gather(tensors: Sequence[torch.Tensor], dim: int, destination: int | None) -> torch.Tensor:
    shape, dim = _gathered_shape(tensors, dim)
    if destination is None:
        device = _cuda(torch.cuda.current_device())
    elif destination == -1:
        device = torch.device("cpu")
    else:
        device = _cuda(destination)
    out = torch.empty(shape, dtype=tensors[0].dtype, device=device)
    return _gather_into(tensors, out, dim)


def gather_out(tensors: Sequence[torch.Tensor], out_tensor: torch.Tensor, dim: int) -> torch.Tensor:
    shape, dim = _gathered_shape(tensors, dim)
    if list(out_tensor.shape) != shape:
        raise RuntimeError(
            f"Expected out tensor to have shape {shape}, but got {list(out_tensor.shape)}"
        )
    return _gather_into(tensors, out_tensor, dim)


# torch._C name -> implementation.
NAMES = {
    "_broadcast": broadcast,
    "_broadcast_out": broadcast_out,
    "_broadcast_coalesced": broadcast_coalesced,
    "_scatter": scatter,
    "_scatter_out": scatter_out,
    "_gather": gather,
    "_gather_out": gather_out,
}
