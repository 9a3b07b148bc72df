"""Graphs: stream capture and replay through torch.accelerator.Graph (every backend) and
torch.cuda's CUDAGraph, graph and make_graphed_callables (the CUDA key), with the
capture's memory in a private pool, graph-safe random numbers and CUDA's refusals during
capture."""

import unittest
from collections.abc import Callable

import torch
from backend import DEVICE, main, mod

MiB = 1 << 20
IS_CUDA = DEVICE == "cuda"


def capture(graph: torch.accelerator.Graph, body: Callable[[], object]) -> object:
    """Runs `body` under capture into `graph` on a side stream; returns what it returns."""
    mod.synchronize()
    with torch.Stream(device=DEVICE), graph:
        result = body()
    return result


class Graphs(unittest.TestCase):
    def setUp(self) -> None:
        torch.empty(1, device=DEVICE)  # initialised
        mod.synchronize()

    def test_captured_work_runs_on_replay_only(self) -> None:
        x = torch.zeros(1000, device=DEVICE)
        y = torch.full((1000,), 3.0, device=DEVICE)
        graph = torch.accelerator.Graph()

        def body() -> torch.Tensor:
            z = x * 2 + y
            x.add_(1)
            return z

        z = capture(graph, body)
        self.assertEqual(x.cpu().max().item(), 0.0, "captured, not run")
        for _ in range(3):
            graph.replay()
        mod.synchronize()
        torch.testing.assert_close(x.cpu(), torch.full((1000,), 3.0))
        torch.testing.assert_close(z.cpu(), torch.full((1000,), 7.0))  # from x == 2
        # Replays read the static inputs as they are at the time.
        y.copy_(torch.full((1000,), -1.0, device=DEVICE))
        graph.replay()
        mod.synchronize()
        torch.testing.assert_close(z.cpu(), torch.full((1000,), 5.0))

    def test_graph_memory_is_its_own(self) -> None:
        x = torch.arange(4096, dtype=torch.float32, device=DEVICE)
        graph = torch.accelerator.Graph()
        addresses: list[int] = []

        def body() -> torch.Tensor:
            temporary = x * 2  # freed during capture: its memory stays the graph's
            addresses.append(temporary.data_ptr())
            return temporary + 1

        out = capture(graph, body)
        eager = [torch.full((4096,), 100.0, device=DEVICE) for _ in range(4)]
        self.assertNotIn(addresses[0], [t.data_ptr() for t in eager])
        graph.replay()
        mod.synchronize()
        torch.testing.assert_close(out.cpu(), torch.arange(4096, dtype=torch.float32) * 2 + 1)

    def test_graphs_share_a_pool(self) -> None:
        x = torch.ones(256, device=DEVICE)
        first = torch.accelerator.Graph()
        a = capture(first, lambda: x * 2)
        second = torch.accelerator.Graph(pool=first.pool())
        b = capture(second, lambda: x * 3)
        self.assertEqual(second.pool(), first.pool())
        first.replay()
        second.replay()
        mod.synchronize()
        torch.testing.assert_close(a.cpu(), torch.full((256,), 2.0))
        torch.testing.assert_close(b.cpu(), torch.full((256,), 3.0))

    def test_reset_gives_the_memory_back(self) -> None:
        mod.empty_cache()
        before = mod.memory_reserved()
        graph = torch.accelerator.Graph()
        out = capture(graph, lambda: torch.ones(MiB, device=DEVICE) + 1)
        self.assertGreater(mod.memory_reserved(), before + 4 * MiB - 1)
        graph.reset()
        del out
        mod.empty_cache()
        self.assertEqual(mod.memory_reserved(), before)

    def test_synchronising_in_capture_fails_and_device_stays_usable(self) -> None:
        x = torch.ones(16, device=DEVICE)
        graph = torch.accelerator.Graph()
        with self.assertRaisesRegex(RuntimeError, "capturing|capture"):
            capture(graph, lambda: x.sum().item())
        self.assertFalse(torch.cuda.is_current_stream_capturing() if IS_CUDA else False)
        torch.accelerator.synchronize()  # the failed capture left nothing behind
        self.assertEqual((x + 1).sum().item(), 32.0)
        again = torch.accelerator.Graph()
        out = capture(again, lambda: x * 5)
        again.replay()
        mod.synchronize()
        torch.testing.assert_close(out.cpu(), torch.full((16,), 5.0))

    def test_random_numbers_in_capture_are_fresh_at_each_replay(self) -> None:
        # Graph-safe Philox, as stock's: each replay draws what eager calls from the same
        # generator state would, and advances the generator past them.
        graph = torch.accelerator.Graph()
        out = capture(graph, lambda: torch.rand(1000, device=DEVICE) * 2)
        mod.manual_seed(7)
        graph.replay()
        first = out.cpu()
        graph.replay()
        second = out.cpu()
        after_replays = torch.rand(1000, device=DEVICE).cpu()
        mod.manual_seed(7)
        eager = [(torch.rand(1000, device=DEVICE) * 2).cpu() for _ in range(2)]
        eager.append(torch.rand(1000, device=DEVICE).cpu())
        for got, expected in zip((first, second, after_replays), eager, strict=True):
            torch.testing.assert_close(got, expected, rtol=0, atol=0)
        self.assertFalse(torch.equal(first, second))

    def test_random_numbers_in_a_graph_hold_no_memory_after_it(self) -> None:
        # The generator's device words go with the last graph that reads them (stock's
        # unregister_graph), so an emptied cache holds nothing of them.
        mod.empty_cache()
        before = mod.memory_reserved()
        graph = torch.accelerator.Graph()
        out = capture(graph, lambda: torch.rand(8, device=DEVICE))
        graph.replay()
        mod.synchronize()
        del out, graph
        mod.empty_cache()
        self.assertEqual(mod.memory_reserved(), before)

    def test_dropout_in_a_graph_masks_afresh_at_each_replay(self) -> None:
        x = torch.ones(4096, device=DEVICE)
        graph = torch.accelerator.Graph()
        out = capture(graph, lambda: torch.nn.functional.dropout(x, p=0.5, training=True))
        masks = []
        for _ in range(2):
            graph.replay()
            masks.append(out.cpu() != 0)
        for mask in masks:
            self.assertTrue(0.4 < mask.float().mean().item() < 0.6)
        self.assertFalse(torch.equal(masks[0], masks[1]))

    def test_random_numbers_from_another_generator_are_refused(self) -> None:
        generator = torch.Generator(device=DEVICE)
        with self.assertRaisesRegex(RuntimeError, "generator the capture does not own"):
            capture(
                torch.accelerator.Graph(),
                lambda: torch.rand(8, device=DEVICE, generator=generator),
            )
        self.assertEqual(torch.rand(8, device=DEVICE, generator=generator).shape, (8,))

    def test_misuse(self) -> None:
        graph = torch.accelerator.Graph()
        with self.assertRaisesRegex(RuntimeError, "without a preceding successful capture"):
            graph.replay()
        with self.assertRaisesRegex(RuntimeError, "non-default stream"):
            graph.capture_begin()
        x = torch.ones(4, device=DEVICE)
        capture(graph, lambda: x.add_(1))
        with self.assertRaisesRegex(RuntimeError, "already owns a captured graph"):
            capture(graph, lambda: x.add_(1))


@unittest.skipUnless(IS_CUDA, f"torch.cuda's graph API; torch.{DEVICE} has none in stock torch")
class CudaGraphs(unittest.TestCase):
    def test_registered_generator_draws_afresh_at_each_replay(self) -> None:
        # register_generator_state: a generator of the user's, graph-safe as the default.
        generator = torch.Generator(device=DEVICE)
        graph = torch.cuda.CUDAGraph()
        graph.register_generator_state(generator)
        with torch.cuda.graph(graph):
            out = torch.rand(1000, device=DEVICE, generator=generator)
        generator.manual_seed(11)
        replays = []
        for _ in range(2):
            graph.replay()
            replays.append(out.cpu())
        generator.manual_seed(11)
        eager = [torch.rand(1000, device=DEVICE, generator=generator).cpu() for _ in range(2)]
        for got, expected in zip(replays, eager, strict=True):
            torch.testing.assert_close(got, expected, rtol=0, atol=0)
        self.assertFalse(torch.equal(replays[0], replays[1]))
        with self.assertRaisesRegex(RuntimeError, "expected a CUDA generator"):
            torch.cuda.CUDAGraph().register_generator_state(torch.Generator())
        with self.assertRaisesRegex(RuntimeError, "expected a torch.Generator"):
            torch.cuda.CUDAGraph().register_generator_state(3)
        late = torch.cuda.CUDAGraph()
        with self.assertRaisesRegex(RuntimeError, "before capture_begin"):
            with torch.cuda.graph(late):
                late.register_generator_state(generator)

    def test_cuda_graph_context_and_capturing_flag(self) -> None:
        x = torch.zeros(8, device=DEVICE)
        flags: list[bool] = []
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=torch.cuda.graph_pool_handle()):
            flags.append(torch.cuda.is_current_stream_capturing())
            x.add_(2)
        self.assertEqual(flags, [True])
        self.assertFalse(torch.cuda.is_current_stream_capturing())
        graph.replay()
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(x.cpu(), torch.full((8,), 4.0))

    def test_snapshot_names_the_graph_pool(self) -> None:
        x = torch.ones(1024, device=DEVICE)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = x * 2
        pools = {tuple(s["segment_pool_id"]) for s in torch.cuda.memory._snapshot()["segments"]}
        self.assertIn(tuple(graph.pool()), pools)
        self.assertIn((0, 0), pools)  # x's, from the default pools
        del out

    def test_keep_graph_exposes_raw_handles(self) -> None:
        x = torch.zeros(8, device=DEVICE)
        graph = torch.cuda.CUDAGraph(keep_graph=True)
        with torch.cuda.graph(graph):
            x.add_(1)
        self.assertNotEqual(graph.raw_cuda_graph(), 0)
        graph.instantiate()
        self.assertNotEqual(graph.raw_cuda_graph_exec(), 0)
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(x.cpu(), torch.ones(8))

    def test_make_graphed_callables_trains_like_eager(self) -> None:
        torch.manual_seed(0)
        graphed = torch.nn.Sequential(
            torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)
        ).cuda()
        eager = torch.nn.Sequential(
            torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)
        ).cuda()
        eager.load_state_dict(graphed.state_dict())
        sample = torch.randn(8, 16, device=DEVICE)
        model = torch.cuda.make_graphed_callables(graphed, (sample,))
        optimizers = [torch.optim.SGD(m.parameters(), lr=0.01) for m in (graphed, eager)]
        for _ in range(3):
            batch = torch.randn(8, 16, device=DEVICE)
            for net, optimizer in zip((model, eager), optimizers, strict=False):
                optimizer.zero_grad(set_to_none=True)
                net(batch).square().sum().backward()
                optimizer.step()
        for a, b in zip(graphed.parameters(), eager.parameters(), strict=False):
            torch.testing.assert_close(a, b)


if __name__ == "__main__":
    main()
