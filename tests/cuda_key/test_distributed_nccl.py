"""torch.distributed's NCCL backend: init_process_group("nccl") makes _CUDAC's
ProcessGroupNCCL (torch_patches/nccl_process_group.py), torch_core's collective process
group over the variant's communicator: on the simulated variant, whose calls run on the
simulated streams in stream order and move the bytes through gloo over loopback; on a
GPU, NCCL (with a GPU per rank; the checks skip, saying so, where there are fewer).

The checks of distributed_checks.py with 2 and 4 processes (every collective against a CPU
reference, side-stream order, async work and futures, DDP and FSDP2 against one process),
objects, batch_isend_irecv, subgroups and more dtypes, the coalescing manager, a group
bound to a device, stock's errors for bad tensors, and a peer that dies: with
TORCH_NCCL_BLOCKING_WAIT the others' wait() raises DistBackendError at once; by default
(TORCH_NCCL_ASYNC_ERROR_HANDLING 3) their watchdog takes the process down, as stock's does,
instead of hanging."""

from __future__ import annotations

import datetime
import os
import time
import unittest

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from distributed_checks import (
    TIMEOUT_S,
    check_all_reduce,
    check_ddp_matches_single_process,
    check_fsdp2_matches_single_process,
    check_other_collectives,
    check_reduce_scatter,
    check_stream_order_and_async,
    device_of,
    last_rank_dies,
    spawn,
)

import torch_cuda


def check_backend_is_nccl(rank: int, world: int) -> None:
    assert dist.is_nccl_available()
    assert dist.get_backend() == "nccl"
    backend = dist.group.WORLD._get_backend(torch.device("cuda"))
    assert isinstance(backend, dist.ProcessGroupNCCL), type(backend)
    assert backend.options.is_high_priority_stream is False
    assert backend.options._timeout == datetime.timedelta(seconds=TIMEOUT_S)


def check_bound_device(rank: int, world: int) -> None:
    assert dist.group.WORLD.bound_device_id == device_of(rank), dist.group.WORLD.bound_device_id


def check_stocks_errors(rank: int, world: int) -> None:
    device = device_of(rank)
    try:
        dist.all_reduce(torch.ones(3))
    except RuntimeError as error:
        assert "No backend type associated with device type cpu" in str(error), error
    else:
        raise AssertionError("an all_reduce of a CPU tensor on an NCCL group returned")
    try:
        dist.all_reduce(torch.ones(4, 4, device=device).t()[:2])
    except ValueError as error:
        assert "Tensors must be contiguous" in str(error), error
    else:
        raise AssertionError("an all_reduce of a non-contiguous tensor returned")
    try:
        dist.all_reduce(torch.ones(2, device=device), op=dist.ReduceOp.BAND)
    except ValueError as error:
        assert "Cannot use ReduceOp.BAND" in str(error), error
    else:
        raise AssertionError("ReduceOp.BAND returned")
    # The group still works after refusing them.
    tensor = torch.ones(2, device=device)
    dist.all_reduce(tensor)
    assert tensor.cpu().tolist() == [float(world)] * 2


def check_more_of_stocks_uses(rank: int, world: int) -> None:
    """Objects (pickles through CUDA tensors), batch_isend_irecv (a coalesced group), a ring
    of single isend/irecv, a subgroup, complex and bool tensors, integer AVG, PREMUL_SUM."""
    device = device_of(rank)
    torch.cuda.set_device(device)
    objects: list[object] = [{"step": 3, "names": ["a", "b"]}] if rank == 0 else [None]
    dist.broadcast_object_list(objects, src=0)
    assert objects == [{"step": 3, "names": ["a", "b"]}], objects
    gathered: list[object] = [None] * world
    dist.all_gather_object(gathered, ("rank", rank))
    assert gathered == [("rank", r) for r in range(world)], gathered

    after, before = (rank + 1) % world, (rank - 1) % world
    send = torch.full((3,), float(rank), device=device)
    batched, single = torch.empty(3, device=device), torch.empty(3, device=device)
    ops = [dist.P2POp(dist.isend, send, after), dist.P2POp(dist.irecv, batched, before)]
    works = dist.batch_isend_irecv(ops)
    works += [dist.isend(send * 2, after), dist.irecv(single, before)]
    for work in works:
        work.wait()
    torch.cuda.current_stream(device).synchronize()
    assert batched.cpu().tolist() == [float(before)] * 3, batched
    assert single.cpu().tolist() == [2.0 * before] * 3, single

    pair = dist.new_group([0, 1])
    if rank in (0, 1):
        tensor = torch.full((2,), float(rank + 1), device=device)
        dist.all_reduce(tensor, group=pair)
        assert tensor.cpu().tolist() == [3.0, 3.0], tensor

    complex_tensor = torch.tensor([1 + 2j], device=device)
    dist.all_reduce(complex_tensor)  # as two reals (torch.distributed's view_as_real)
    assert complex_tensor.cpu().tolist() == [complex(world, 2 * world)], complex_tensor
    flags = torch.tensor([rank == 0, False], device=device)
    dist.all_reduce(flags)  # booleans: SUM is MAX (stock's mapping)
    assert flags.cpu().tolist() == [True, False], flags
    integers = torch.tensor([3 * rank + 1], device=device)
    dist.all_reduce(integers, op=dist.ReduceOp.AVG)  # NCCL's integer division
    assert integers.item() == sum(3 * r + 1 for r in range(world)) // world, integers

    # PREMUL_SUM: each rank's input times the factor (a number or a device scalar), summed;
    # the inputs of out-of-place calls stay as they were.
    halved = torch.full((2,), float(rank + 1), device=device)
    dist.all_reduce(halved, op=dist._make_nccl_premul_sum(0.5))
    total = float(sum(range(1, world + 1)))
    assert halved.cpu().tolist() == [total / 2] * 2, halved
    source = torch.ones(2 * world, device=device)
    scattered = torch.empty(2, device=device)
    factor = torch.tensor(4.0, device=device)
    dist.reduce_scatter_tensor(scattered, source, op=dist._make_nccl_premul_sum(factor))
    assert scattered.cpu().tolist() == [4.0 * world] * 2, scattered
    assert source.cpu().tolist() == [1.0] * 2 * world, source
    dist.barrier()


def check_coalesced_collectives(rank: int, world: int) -> None:
    """_coalescing_manager's fast path (allreduce_coalesced, allgather_into_tensor_coalesced,
    reduce_scatter_tensor_coalesced), with and without a device (a coalesced group)."""
    device = device_of(rank)
    total = float(sum(range(1, world + 1)))
    for group_device in (None, device):
        first = torch.full((3,), float(rank + 1), device=device)
        second = torch.full((5,), 2.0 * (rank + 1), device=device)
        with dist._coalescing_manager(device=group_device, async_ops=True) as manager:
            dist.all_reduce(first)
            dist.all_reduce(second)
        manager.wait()
        pairs, singles = torch.empty(2 * world, device=device), torch.empty(world, device=device)
        with dist._coalescing_manager(device=group_device):
            dist.all_gather_into_tensor(pairs, torch.full((2,), float(rank), device=device))
            dist.all_gather_into_tensor(singles, torch.full((1,), rank + 10.0, device=device))
        scattered = torch.empty(2, device=device)
        with dist._coalescing_manager(device=group_device):
            dist.reduce_scatter_tensor(scattered, torch.ones(2 * world, device=device))
        torch.cuda.current_stream(device).synchronize()
        where = f"coalesced on {group_device}"
        assert first.cpu().tolist() == [total] * 3, (where, first)
        assert second.cpu().tolist() == [2 * total] * 5, (where, second)
        gathered = [float(r) for r in range(world) for _ in "ab"]
        assert pairs.cpu().tolist() == gathered, (where, pairs)
        assert singles.cpu().tolist() == [r + 10.0 for r in range(world)], (where, singles)
        assert scattered.cpu().tolist() == [float(world)] * 2, (where, scattered)


def check_dead_peer_raises_with_blocking_wait(rank: int, world: int) -> None:
    """The last rank dies; with TORCH_NCCL_BLOCKING_WAIT=1 the others' wait() raises."""
    device = device_of(rank)
    last_rank_dies(rank, world)
    started = time.monotonic()
    try:
        dist.all_reduce(torch.ones(4, device=device))
    except dist.DistBackendError as error:
        print(f"rank {rank}: {error}", flush=True)
        assert "SeqNum" in str(error), error
        assert time.monotonic() - started < TIMEOUT_S / 2, "the error came only at the timeout"
    else:
        raise AssertionError("all_reduce with a dead peer returned")
    os._exit(0)  # the group is broken: leave without destroying it, as the peer did


def check_dead_peer_takes_the_process_down(rank: int, world: int) -> None:
    """By default the watchdog ends a rank whose collective failed, within the timeout."""
    device = device_of(rank)
    last_rank_dies(rank, world)
    dist.all_reduce(torch.ones(4, device=device))
    deadline = time.monotonic() + TIMEOUT_S / 2
    while time.monotonic() < deadline:
        time.sleep(0.05)
    os._exit(3)  # the watchdog did not act


def skip_unless_a_gpu_per_rank(world: int) -> None:
    """NCCL on GPUs takes one device per rank; the simulated devices are shared round-robin."""
    count = torch.cuda.device_count()
    if torch_cuda.build_info().variant != "simulated" and count < world:
        raise unittest.SkipTest(f"NCCL needs a GPU per rank: {world} ranks, {count} GPU(s)")


class NcclProcessGroup(unittest.TestCase):
    def test_two_processes(self) -> None:
        skip_unless_a_gpu_per_rank(2)
        spawn(
            "nccl",
            2,
            [
                check_backend_is_nccl,
                check_all_reduce,
                check_reduce_scatter,
                check_other_collectives,
                check_stream_order_and_async,
                check_stocks_errors,
                check_more_of_stocks_uses,
                check_coalesced_collectives,
                check_ddp_matches_single_process,
                check_fsdp2_matches_single_process,
            ],
        )

    def test_four_processes(self) -> None:
        skip_unless_a_gpu_per_rank(4)
        spawn(
            "nccl",
            4,
            [
                check_all_reduce,
                check_reduce_scatter,
                check_other_collectives,
                check_more_of_stocks_uses,
            ],
        )

    def test_bound_to_a_device(self) -> None:
        # init_process_group(device_id=...): the group is bound to each rank's device.
        skip_unless_a_gpu_per_rank(2)
        spawn("nccl", 2, [check_bound_device, check_all_reduce], bind=True)

    def test_dead_peer_with_blocking_wait(self) -> None:
        skip_unless_a_gpu_per_rank(2)
        os.environ["TORCH_NCCL_BLOCKING_WAIT"] = "1"
        os.environ["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = "0"
        try:
            spawn("nccl", 2, [check_dead_peer_raises_with_blocking_wait])
        finally:
            for name in ("TORCH_NCCL_BLOCKING_WAIT", "TORCH_NCCL_ASYNC_ERROR_HANDLING"):
                del os.environ[name]

    def test_dead_peer_by_default_ends_the_others(self) -> None:
        skip_unless_a_gpu_per_rank(2)
        with self.assertRaises(mp.ProcessExitedException) as raised:
            spawn("nccl", 2, [check_dead_peer_takes_the_process_down])
        self.assertEqual(raised.exception.signal_name, "SIGABRT", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
