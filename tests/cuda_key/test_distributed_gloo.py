"""torch.distributed's gloo backend with CUDA tensors, 2 and 4 processes on loopback:
the checks of distributed_checks.py, that users still see gloo, and a dead peer. allreduce
and reduce_scatter crashed with SIGSEGV before torch_patches/gloo_device_staging.py; on a
GPU, the FSDP2 check did while gloo ran the other collectives on device tensors itself.
"""

from __future__ import annotations

import datetime
import os
import time
import unittest

import torch
import torch.distributed as dist
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


def check_backend_is_reported_as_gloo(rank: int, world: int) -> None:
    # The CUDA device's backend is the staging wrapper; users still see gloo.
    group = dist.group.WORLD
    assert dist.get_backend() == "gloo"
    assert group._get_backend(torch.device("cuda")).name() == "gloo"
    assert isinstance(group._get_backend(torch.device("cpu")), dist.ProcessGroupGloo)


def check_dead_peer_fails_within_the_timeout(rank: int, world: int) -> None:
    """The last rank dies before an all_reduce; the others' all_reduce raises, never hangs."""
    device = device_of(rank)
    last_rank_dies(rank, world)
    started = time.monotonic()
    try:
        dist.all_reduce(torch.ones(4, device=device), async_op=True).wait(
            datetime.timedelta(seconds=5)
        )
    except RuntimeError as error:
        print(f"rank {rank}: {error}", flush=True)
        assert time.monotonic() - started < TIMEOUT_S / 2, "the error came only at the timeout"
    else:
        raise AssertionError("all_reduce with a dead peer returned")
    os._exit(0)  # the group is broken: leave without destroying it, as the peer did



class GlooWithCudaTensors(unittest.TestCase):
    def test_two_processes(self) -> None:
        spawn(
            "gloo",
            2,
            [
                check_all_reduce,
                check_reduce_scatter,
                check_other_collectives,
                check_stream_order_and_async,
                check_ddp_matches_single_process,
                check_fsdp2_matches_single_process,
            ],
        )

    def test_four_processes(self) -> None:
        spawn("gloo", 4, [check_all_reduce, check_reduce_scatter, check_other_collectives])

    def test_dead_peer(self) -> None:
        spawn("gloo", 2, [check_dead_peer_fails_within_the_timeout])

    def test_backend_is_reported_as_gloo(self) -> None:
        spawn("gloo", 2, [check_backend_is_reported_as_gloo])


if __name__ == "__main__":
    unittest.main()
