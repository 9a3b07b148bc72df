"""torch.distributed with CUDA tensors, 2 and 4 processes on loopback, for any backend
that takes them (gloo staging through host memory, NCCL): every collective against a
reference computed on the CPU from what each rank holds (several dtypes, sizes that do not
divide evenly), collectives of tensors written on a side stream (the collective must wait
for it), async work and futures, and DDP and FSDP2 (fully_shard) training matching
single-process training on the concatenated batch. `spawn` runs checks in a process group.
"""

from __future__ import annotations

import datetime
import faulthandler
import os
import tempfile
import time
from collections.abc import Callable

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.testing import assert_close

Check = Callable[[int, int], None]

TIMEOUT_S = 60
DTYPES = (torch.float32, torch.float64, torch.int64, torch.bfloat16)
SIZES = (1, 7, 13)  # 7 and 13 split unevenly over 2 and 4 ranks


def device_of(rank: int) -> torch.device:
    """The rank's CUDA device (ranks share the simulated devices round-robin)."""
    return torch.device("cuda", rank % torch.cuda.device_count())


def rank_values(rank: int, numel: int, dtype: torch.dtype) -> torch.Tensor:
    """What rank `rank` contributes: small integers, exact in every dtype."""
    return (torch.arange(numel) % 5 + rank + 1).to(dtype)


def check_all_reduce(rank: int, world: int) -> None:
    device = device_of(rank)
    for dtype in DTYPES:
        for numel in SIZES:
            contributions = torch.stack([rank_values(r, numel, dtype) for r in range(world)])
            ops = [
                (dist.ReduceOp.SUM, contributions.sum(0)),
                (dist.ReduceOp.PRODUCT, contributions.prod(0)),
                (dist.ReduceOp.MIN, contributions.amin(0)),
                (dist.ReduceOp.MAX, contributions.amax(0)),
            ]
            if dtype.is_floating_point:
                ops.append((dist.ReduceOp.AVG, contributions.sum(0) / world))
            for op, expected in ops:
                tensor = rank_values(rank, numel, dtype).to(device)
                dist.all_reduce(tensor, op=op)
                assert tensor.device == device
                assert_close(tensor.cpu(), expected.to(dtype), msg=f"{op} {dtype} {numel}")


def check_reduce_scatter(rank: int, world: int) -> None:
    device = device_of(rank)
    for dtype in DTYPES:
        for chunk in SIZES:
            full = [rank_values(r, chunk * world, dtype) for r in range(world)]
            expected = torch.stack(full).sum(0)[rank * chunk : (rank + 1) * chunk]
            output = torch.empty(chunk, dtype=dtype, device=device)
            dist.reduce_scatter_tensor(output, full[rank].to(device))
            assert_close(output.cpu(), expected, msg=f"reduce_scatter_tensor {dtype} {chunk}")
            listed = torch.full((chunk,), -1, dtype=dtype, device=device)
            dist.reduce_scatter(listed, list(full[rank].to(device).chunk(world)))
            assert_close(listed.cpu(), expected, msg=f"reduce_scatter {dtype} {chunk}")


def check_other_collectives(rank: int, world: int) -> None:
    device = device_of(rank)
    mine = rank_values(rank, 7, torch.float32)
    everyone = [rank_values(r, 7, torch.float32) for r in range(world)]

    tensor = mine.to(device)
    dist.broadcast(tensor, src=world - 1)
    assert_close(tensor.cpu(), everyone[-1])

    gathered = [torch.empty(7, device=device) for _ in range(world)]
    dist.all_gather(gathered, mine.to(device))
    assert_close(torch.stack(gathered).cpu(), torch.stack(everyone))

    into = torch.empty(7 * world, device=device)
    dist.all_gather_into_tensor(into, mine.to(device))
    assert_close(into.cpu(), torch.cat(everyone))

    tensor = mine.to(device)
    dist.reduce(tensor, dst=0)
    if rank == 0:
        assert_close(tensor.cpu(), torch.stack(everyone).sum(0))

    gathered = [torch.empty(7, device=device) for _ in range(world)] if rank == 0 else None
    dist.gather(mine.to(device), gathered, dst=0)
    if rank == 0:
        assert_close(torch.stack(gathered).cpu(), torch.stack(everyone))

    piece = torch.empty(7, device=device)
    dist.scatter(piece, [e.to(device) for e in everyone] if rank == 0 else None, src=0)
    assert_close(piece.cpu(), everyone[rank])

    # all_to_all_single with uneven splits: rank r sends r + 1 elements to each rank.
    send = torch.full((world * (rank + 1),), float(rank), device=device)
    received = torch.empty(sum(r + 1 for r in range(world)), device=device)
    dist.all_to_all_single(received, send, [r + 1 for r in range(world)], [rank + 1] * world)
    assert_close(received.cpu(), torch.cat([torch.full((r + 1,), float(r)) for r in range(world)]))

    if rank == 0:
        dist.send(mine.to(device), dst=1)
        dist.isend(mine.to(device) * 2, dst=1).wait()
    elif rank == 1:
        tensor = torch.empty(7, device=device)
        dist.recv(tensor, src=0)
        assert_close(tensor.cpu(), everyone[0])
        work = dist.irecv(tensor, src=0)
        work.wait()  # the device's current stream waits for it (NCCL): done once that is
        torch.cuda.current_stream(device).synchronize()
        assert work.is_completed()
        assert_close(tensor.cpu(), everyone[0] * 2)
    dist.barrier()


def check_stream_order_and_async(rank: int, world: int) -> None:
    device = device_of(rank)
    torch.cuda.set_device(device)
    side = torch.cuda.Stream()
    tensor = torch.zeros(1024, device=device)
    with torch.cuda.stream(side):
        torch.cuda._sleep(20_000_000)  # the fill below lands well after the call returns
        tensor.fill_(rank + 1)
        dist.all_reduce(tensor)  # it must wait for the side stream
    # Stream semantics (NCCL's): the collective is ordered on the side stream.
    torch.cuda.current_stream().wait_stream(side)
    assert_close(tensor.cpu(), torch.full((1024,), float(sum(range(1, world + 1)))))

    # So does every other collective's (all_gather here).
    source, gathered = torch.zeros(4, device=device), torch.empty(4 * world, device=device)
    with torch.cuda.stream(side):
        torch.cuda._sleep(20_000_000)
        source.fill_(rank + 1)
        dist.all_gather_into_tensor(gathered, source)
    torch.cuda.current_stream().wait_stream(side)
    assert_close(gathered.cpu(), torch.arange(1.0, world + 1).repeat_interleave(4))

    tensor = torch.ones(5, device=device)
    work = dist.all_reduce(tensor, async_op=True)
    future = work.get_future()
    assert work.wait()
    torch.cuda.current_stream(device).synchronize()
    assert work.is_completed() and work.is_success()
    assert_close(future.wait()[0].cpu(), torch.full((5,), float(world)))
    assert_close(tensor.cpu(), torch.full((5,), float(world)))

    output = torch.empty(3, device=device)
    work = dist.reduce_scatter_tensor(output, torch.ones(3 * world, device=device), async_op=True)
    work.wait()
    assert_close(output.cpu(), torch.full((3,), float(world)))


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))


Batches = list[tuple[torch.Tensor, torch.Tensor]]


def _batches(world: int) -> Batches:
    generator = torch.Generator().manual_seed(1)
    return [
        (
            torch.randn(4 * world, 6, generator=generator),
            torch.randn(4 * world, 2, generator=generator),
        )
        for _ in range(3)
    ]


def _train(model: torch.nn.Module, batches: Batches, rank: int | None = None) -> None:
    """SGD over `batches`; with `rank`, over that rank's quarter-batch on its device."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for inputs, targets in batches:
        if rank is not None:
            mine, device = slice(4 * rank, 4 * (rank + 1)), torch.cuda.current_device()
            inputs, targets = inputs[mine].to(device), targets[mine].to(device)
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(inputs), targets).backward()
        optimizer.step()


def _single_process_reference(world: int) -> torch.nn.Module:
    reference = _model()
    _train(reference, _batches(world))
    return reference


def check_ddp_matches_single_process(rank: int, world: int) -> None:
    device = device_of(rank)
    torch.cuda.set_device(device)
    ddp = torch.nn.parallel.DistributedDataParallel(_model().to(device), device_ids=[device])
    _train(ddp, _batches(world), rank)
    reference = _single_process_reference(world)
    for got, want in zip(ddp.module.parameters(), reference.parameters(), strict=True):
        assert_close(got.detach().cpu(), want.detach(), rtol=1e-5, atol=1e-6)


def check_fsdp2_matches_single_process(rank: int, world: int) -> None:
    from torch.distributed.fsdp import fully_shard

    device = device_of(rank)
    torch.cuda.set_device(device)
    model = _model().to(device)
    for layer in model:
        if isinstance(layer, torch.nn.Linear):
            fully_shard(layer)
    fully_shard(model)
    _train(model, _batches(world), rank)
    reference = _single_process_reference(world)
    for got, want in zip(model.parameters(), reference.parameters(), strict=True):
        assert got.device == device  # each rank holds its shard on its device
        assert_close(got.full_tensor().cpu(), want.detach(), rtol=1e-5, atol=1e-6)


def _worker(
    rank: int, world: int, backend: str, init_file: str, checks: list[Check], bind: bool
) -> None:
    faulthandler.enable()  # a rank that crashes says where
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    dist.init_process_group(
        backend,
        init_method=f"file://{init_file}",
        rank=rank,
        world_size=world,
        timeout=datetime.timedelta(seconds=TIMEOUT_S),
        device_id=device_of(rank) if bind else None,
    )
    try:
        for check in checks:
            check(rank, world)
        _all_ranks_done(world)
    finally:
        dist.destroy_process_group()


def last_rank_dies(rank: int, world: int) -> None:
    """After a barrier, the last rank exits without any cleanup, as a crashed process."""
    dist.barrier()
    if rank == world - 1:
        os._exit(0)


def spawn(backend: str, world: int, checks: list[Check], *, bind: bool = False) -> None:
    """Runs `checks` in `world` processes of a `backend` process group on loopback; with
    `bind`, each rank's group is bound to its device (init_process_group(device_id=))."""
    with tempfile.TemporaryDirectory(prefix=f"{backend}.") as directory:
        init_file = os.path.join(directory, "init")
        args = (world, backend, init_file, checks, bind)
        mp.spawn(_worker, args=args, nprocs=world, join=True)


def _all_ranks_done(world: int) -> None:
    """Waits, through the store, until every rank has returned from its last collective: a
    rank that closed its gloo sockets while a peer still read from them would reset them."""
    store = dist.distributed_c10d._get_default_store()
    store.add("checks_done", 1)
    deadline = time.monotonic() + TIMEOUT_S
    while store.add("checks_done", 0) < world:
        assert time.monotonic() < deadline, "another rank did not finish its checks"
        time.sleep(0.01)
