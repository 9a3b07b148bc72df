"""Unmodified CUDA user code on the stock CPU-only torch with torch_cuda installed
(simulated variant). Nothing here imports torch_cuda: the activation is the installed
.pth's (site/sitecustomize.py in Bazel)."""

from __future__ import annotations

import copy
import io
import os
import unittest
import warnings
from collections.abc import Callable

import torch
from torch.utils.data import DataLoader, TensorDataset

# The simulated variant's tests have 2 devices; a GPU machine may have 1.
needs_two_devices = unittest.skipIf(
    torch.cuda.device_count() < 2, f"needs 2 CUDA devices, found {torch.cuda.device_count()}"
)


class UserCode(unittest.TestCase):
    def test_is_available(self) -> None:
        self.assertTrue(torch.cuda.is_available())
        simulated = os.environ.get("TORCH_SIM_DEVICE_COUNT")
        if simulated is not None:
            self.assertEqual(torch.cuda.device_count(), int(simulated))
        self.assertGreaterEqual(torch.cuda.device_count(), 1)

    def test_tensor_cuda(self) -> None:
        x = torch.arange(6.0).reshape(2, 3)
        y = x.cuda()
        self.assertTrue(y.is_cuda)
        self.assertEqual(y.device, torch.device("cuda", 0))
        self.assertTrue(torch.equal(y.cpu(), x))

    def test_randn_on_cuda(self) -> None:
        x = torch.randn(4, 5, device="cuda")
        self.assertEqual(x.device.type, "cuda")
        self.assertEqual(x.shape, (4, 5))

    @needs_two_devices
    def test_to_cuda_1(self) -> None:
        x = torch.ones(3, device="cuda").to("cuda:1")
        self.assertEqual(x.device, torch.device("cuda", 1))
        self.assertTrue(torch.equal((x * 2).cpu(), torch.full((3,), 2.0)))

    def _train(
        self, device: str, optimizer_factory: Callable[..., torch.optim.Optimizer]
    ) -> list[torch.Tensor]:
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
        model = model.cuda() if device == "cuda" else model
        optimizer = optimizer_factory(model.parameters())
        data = torch.randn(16, 4)
        target = torch.randn(16, 1)
        for _ in range(3):
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(data.to(device)), target.to(device))
            loss.backward()
            optimizer.step()
        return [p.detach().cpu() for p in model.parameters()]

    def test_module_cuda_sgd(self) -> None:
        cpu = self._train("cpu", lambda p: torch.optim.SGD(p, lr=0.1))
        cuda = self._train("cuda", lambda p: torch.optim.SGD(p, lr=0.1))
        for a, b in zip(cpu, cuda, strict=False):
            torch.testing.assert_close(a, b)

    def test_module_cuda_adam_foreach(self) -> None:
        cpu = self._train("cpu", lambda p: torch.optim.Adam(p, lr=0.01, foreach=True))
        cuda = self._train("cuda", lambda p: torch.optim.Adam(p, lr=0.01, foreach=True))
        for a, b in zip(cpu, cuda, strict=False):
            torch.testing.assert_close(a, b)

    def test_stream_event(self) -> None:
        stream = torch.cuda.Stream()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        with torch.cuda.stream(stream):
            self.assertEqual(torch.cuda.current_stream(), stream)
            start.record()
            x = torch.ones(100, device="cuda") * 3
            end.record()
        torch.cuda.current_stream().wait_stream(stream)
        end.synchronize()
        self.assertTrue(end.query())
        self.assertGreaterEqual(start.elapsed_time(end), 0.0)
        self.assertEqual(x.sum().item(), 300.0)
        self.assertIsInstance(torch.cuda.current_stream().cuda_stream, int)

    @needs_two_devices
    def test_other_devices_streams_while_device_0_is_current(self) -> None:
        # Device 1's default stream and events act on device 1 although device 0 is
        # current: the simulator refuses a call that a GPU would send to device 0's stream.
        torch.cuda.set_device(0)
        x1 = torch.arange(1000.0, device="cuda:1") * 3
        stream1 = torch.cuda.default_stream(1)
        stream1.synchronize()
        self.assertTrue(stream1.query())
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record(stream1)
        stream1.wait_event(start)
        torch.cuda.current_stream(0).wait_event(start)
        end.record(stream1)
        end.synchronize()
        self.assertGreaterEqual(start.elapsed_time(end), 0.0)
        side1 = torch.cuda.Stream(device=1)
        side1.wait_stream(stream1)
        with torch.cuda.stream(side1):
            y1 = x1 + 1
        stream1.wait_stream(side1)
        y1.record_stream(stream1)
        x0 = y1.to("cuda:0")
        torch.cuda.synchronize(1)
        self.assertEqual(torch.cuda.current_device(), 0)
        expected = torch.arange(1000.0) * 3 + 1
        self.assertTrue(torch.equal(x0.cpu(), expected))
        del y1
        torch.cuda.set_device(1)
        back = x0.to("cuda:0").to("cuda:1")  # from device 1: device 0's stream is the other one
        torch.cuda.set_device(0)
        self.assertTrue(torch.equal(back.cpu(), expected))

    def test_memory_stats(self) -> None:
        torch.cuda.init()
        before = torch.cuda.memory_allocated()
        x = torch.empty(1 << 20, dtype=torch.uint8, device="cuda")
        self.assertGreaterEqual(torch.cuda.memory_allocated() - before, 1 << 20)
        self.assertGreaterEqual(torch.cuda.memory_reserved(), torch.cuda.memory_allocated())
        self.assertGreaterEqual(torch.cuda.max_memory_allocated(), 1 << 20)
        self.assertIn("allocated_bytes.all.current", torch.cuda.memory_stats())
        del x
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        free, total = torch.cuda.mem_get_info()
        self.assertLessEqual(free, total)
        self.assertIn("memory summary", torch.cuda.memory_summary())

    def test_manual_seed(self) -> None:
        torch.cuda.manual_seed(7)
        a = torch.randn(8, device="cuda")
        torch.cuda.manual_seed(7)
        b = torch.randn(8, device="cuda")
        self.assertTrue(torch.equal(a.cpu(), b.cpu()))
        torch.cuda.manual_seed_all(3)
        self.assertEqual(torch.cuda.initial_seed(), 3)

    def test_autocast_bf16(self) -> None:
        model = torch.nn.Linear(4, 4).cuda()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = model(torch.randn(2, 4, device="cuda"))
        self.assertEqual(out.dtype, torch.bfloat16)
        self.assertTrue(torch.cuda.is_bf16_supported())

    def test_pin_memory(self) -> None:
        x = torch.ones(16).pin_memory()
        self.assertTrue(x.is_pinned())
        y = x.to("cuda", non_blocking=True)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(y.cpu(), x))

    def test_dataloader_pin_memory(self) -> None:
        loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4, pin_memory=True)
        batches = list(loader)
        self.assertTrue(all(batch[0].is_pinned() for batch in batches))

    @needs_two_devices
    def test_save_load_map_location(self) -> None:
        buffer = io.BytesIO()
        torch.save({"w": torch.arange(4.0, device="cuda")}, buffer)
        buffer.seek(0)
        loaded = torch.load(buffer, map_location="cuda:1")
        self.assertEqual(loaded["w"].device, torch.device("cuda", 1))
        self.assertTrue(torch.equal(loaded["w"].cpu(), torch.arange(4.0)))
        buffer.seek(0)
        self.assertEqual(torch.load(buffer)["w"].device, torch.device("cuda", 0))

    def test_accelerator(self) -> None:
        self.assertEqual(torch.accelerator.current_accelerator(), torch.device("cuda"))
        self.assertTrue(torch.accelerator.is_available())
        last = torch.cuda.device_count() - 1
        self.assertEqual(torch.accelerator.device_count(), last + 1)
        torch.accelerator.set_device_index(last)
        try:
            self.assertEqual(torch.accelerator.current_device_index(), last)
        finally:
            torch.accelerator.set_device_index(0)
        torch.accelerator.synchronize()

    def test_version_cuda(self) -> None:
        self.assertEqual(torch.version.cuda, "13.5")
        self.assertTrue(torch.backends.cuda.is_built())

    @needs_two_devices
    def test_external_stream(self) -> None:
        # A stream made outside torch (here: torch's own, seen only by its raw handle, as a
        # library's cudaStream_t would be) wraps into a torch stream on the same queue.
        owner = torch.cuda.Stream(1)
        raw = owner.cuda_stream
        with torch.cuda.device(1):
            external = torch.cuda.ExternalStream(raw)
        self.assertEqual(external.cuda_stream, raw)
        self.assertEqual(external.device, torch.device("cuda", 1))
        self.assertEqual(torch.cuda.ExternalStream(raw, device=1), external)
        self.assertEqual(torch.cuda.get_stream_from_external(raw, 1), external)
        x = torch.zeros(1 << 12, device="cuda:1")
        torch.cuda.synchronize(1)
        with torch.cuda.stream(owner):
            torch.cuda._sleep(200_000)
            x.fill_(1.0)
        with torch.cuda.stream(external):
            x.fill_(2.0)  # queued behind the owner's fill: one stream
        external.synchronize()
        self.assertTrue(bool((x.cpu() == 2.0).all()))

    def test_storage_cuda(self) -> None:
        storage = torch.arange(3.0).untyped_storage().cuda()
        self.assertEqual(storage.device.type, "cuda")
        self.assertEqual(torch.UntypedStorage(8, device="cuda").device.type, "cuda")
        typed = torch.ones(3).storage().cuda()
        self.assertEqual(typed.device.type, "cuda")

    def test_cuda_graph_whole_network(self) -> None:
        # The pattern of torch.cuda's graph docs: warm up on a side stream, capture a
        # forward pass, then refill the static input and replay.
        model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU()).cuda()
        static_input = torch.randn(4, 32, device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                model(static_input)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_output = model(static_input)
        for _ in range(2):
            batch = torch.randn(4, 32, device="cuda")
            static_input.copy_(batch)
            graph.replay()
            torch.testing.assert_close(static_output, model(batch))


def _ddp_over_nccl(rank: int, world: int, port: int) -> None:
    """A torchrun-style DDP program: env:// rendezvous, "nccl", one device per rank."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("nccl", rank=rank, world_size=world)
    torch.cuda.set_device(rank)
    torch.manual_seed(0)
    reference = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    model = DistributedDataParallel(copy.deepcopy(reference).cuda(), device_ids=[rank])
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    mine = slice(rank * 4, rank * 4 + 4)
    torch.nn.functional.mse_loss(model(x[mine].cuda()), y[mine].cuda()).backward()
    torch.nn.functional.mse_loss(reference(x), y).backward()  # the whole batch, one process
    for got, want in zip(model.module.parameters(), reference.parameters(), strict=True):
        torch.testing.assert_close(got.grad.cpu(), want.grad)
    dist.destroy_process_group()


@needs_two_devices
class MultiDevice(unittest.TestCase):
    """nn.DataParallel and torch.nn.parallel.comm over the two devices, and DDP over "nccl"
    in two processes."""

    def test_ddp_over_nccl_in_two_processes(self) -> None:
        import socket

        import torch.multiprocessing as mp

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        mp.spawn(_ddp_over_nccl, args=(2, port), nprocs=2)

    def test_data_parallel_matches_one_module(self) -> None:
        torch.manual_seed(0)
        reference = torch.nn.Sequential(
            torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2)
        )
        module = copy.deepcopy(reference).cuda()
        parallel = torch.nn.DataParallel(module, device_ids=[0, 1])
        x = torch.randn(6, 8)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "not compiled with NCCL support"
            out = parallel(x.cuda())
            out.pow(2).sum().backward()
        expected = reference(x)
        expected.pow(2).sum().backward()
        self.assertEqual(out.device, torch.device("cuda", 0))
        torch.testing.assert_close(out.cpu(), expected)
        for got, want in zip(module.parameters(), reference.parameters(), strict=True):
            torch.testing.assert_close(got.grad.cpu(), want.grad)

    def test_comm_broadcast_scatter_gather(self) -> None:
        from torch.nn.parallel import comm

        t = torch.arange(6.0, device="cuda:0")
        copies = comm.broadcast(t, [0, 1])
        self.assertIs(copies[0], t)
        self.assertEqual(copies[1].device, torch.device("cuda", 1))
        parts = comm.scatter(t, [0, 1], chunk_sizes=[2, 4])
        self.assertEqual([p.device.index for p in parts], [0, 1])
        self.assertEqual(parts[1].cpu().tolist(), [2.0, 3.0, 4.0, 5.0])
        gathered = comm.gather(parts, destination=1)
        self.assertEqual((gathered.device.index, gathered.cpu().tolist()), (1, t.cpu().tolist()))
        coalesced = comm.broadcast_coalesced([t, t.long()], [0, 1])
        self.assertEqual([x.dtype for x in coalesced[1]], [torch.float32, torch.int64])
        self.assertEqual(coalesced[1][1].device, torch.device("cuda", 1))
        with self.assertRaisesRegex(RuntimeError, "Input tensor at index 1 has invalid shape"):
            comm.gather([t, torch.ones(2, 2, device="cuda")])
        with self.assertRaisesRegex(RuntimeError, "Expected chunk sizes to sum to 6"):
            comm.scatter(t, [0, 1], chunk_sizes=[2, 2])
        # One element over two devices: one chunk, with a stream given per device.
        streams = [torch.cuda.Stream(0), torch.cuda.Stream(1)]
        self.assertEqual(len(comm.scatter(t[:1], [0, 1], streams=streams)), 1)
        with self.assertRaisesRegex(RuntimeError, "devices and streams to be of same length"):
            comm.scatter(t, [0, 1], streams=streams[:1])


if __name__ == "__main__":
    unittest.main(verbosity=2)
