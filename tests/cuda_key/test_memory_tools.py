"""torch.cuda's memory tools as user code calls them: the pinned host allocator's
statistics, raw blocks of the caching allocator (caching_allocator_alloc/_delete), caching
switched off (caching_allocator_enable, PYTORCH_NO_CUDA_MEMORY_CACHING) and its
memory history (_record_memory_history, _snapshot, _dump_snapshot, _memory_viz, the
per-thread _set_memory_metadata), and the cuBLAS workspaces (cublas_workspace_size and
cublaslt_workspace_size, current_blas_handle, clearCublasWorkspaces)."""

from __future__ import annotations

import os
import pickle
import tempfile
import threading
import unittest
from typing import Any

import torch
from child_python import run_python
from torch.cuda import _memory_viz

import torch_cuda

SIMULATED = torch_cuda.build_info().variant == "simulated"


def allocate_named_buffer() -> torch.Tensor:
    return torch.empty(3 << 20, dtype=torch.uint8, device="cuda")


def frame_names(frames: list[dict[str, Any]]) -> list[str]:
    return [frame["name"] for frame in frames]


class HostMemoryStats(unittest.TestCase):
    def test_pinned_tensors_are_counted(self) -> None:
        torch.cuda.init()  # as stock, the statistics are empty until CUDA is initialised
        torch.cuda.reset_peak_host_memory_stats()
        before = torch.cuda.host_memory_stats()
        pinned = torch.empty(1 << 20, dtype=torch.uint8).pin_memory()
        during = torch.cuda.host_memory_stats()
        self.assertTrue(pinned.is_pinned())
        self.assertEqual(
            during["active_requests.current"], before.get("active_requests.current", 0) + 1
        )
        self.assertGreaterEqual(during["active_bytes.current"], 1 << 20)
        self.assertGreaterEqual(during["num_host_alloc"], 1)
        self.assertIn("host_alloc_time.count", during)
        del pinned
        after = torch.cuda.host_memory_stats()
        self.assertEqual(after["active_requests.current"], during["active_requests.current"] - 1)
        self.assertGreaterEqual(after["active_bytes.peak"], 1 << 20)
        torch.cuda.reset_peak_host_memory_stats()
        self.assertEqual(
            torch.cuda.host_memory_stats()["active_bytes.peak"], after["active_bytes.current"]
        )


class RawAllocation(unittest.TestCase):
    def test_caching_allocator_alloc_and_delete(self) -> None:
        last = torch.cuda.device_count() - 1  # another device than the current one if any
        before = torch.cuda.memory_allocated(last)
        stream = torch.cuda.Stream(last)
        ptr = torch.cuda.caching_allocator_alloc(1 << 20, device=last, stream=stream)
        self.assertEqual(torch.cuda.memory_allocated(last), before + (1 << 20))
        torch.cuda.caching_allocator_delete(ptr)
        self.assertEqual(torch.cuda.memory_allocated(last), before)
        with self.assertRaisesRegex(RuntimeError, "was not allocated by this allocator"):
            torch.cuda.caching_allocator_delete(ptr)


class CachingSwitchedOff(unittest.TestCase):
    """caching_allocator_enable(False) and PYTORCH_NO_CUDA_MEMORY_CACHING=1: blocks come
    straight from the device and go straight back, outside the allocator's statistics."""

    def tearDown(self) -> None:
        torch.cuda.caching_allocator_enable(True)
        torch.cuda.empty_cache()

    def test_freed_memory_goes_back_at_once(self) -> None:
        torch.cuda.init()
        cached = torch.full((1 << 20,), 1.0, device="cuda")
        torch.cuda.caching_allocator_enable(False)
        self.assertFalse(torch._C._cuda_cudaCachingAllocator_is_enabled())
        torch.cuda.empty_cache()
        reserved = torch.cuda.memory_reserved()
        device_free = torch.cuda.mem_get_info()[0]
        uncached = torch.full((1 << 20,), 2.0, device="cuda")
        self.assertEqual(torch.cuda.memory_reserved(), reserved)
        self.assertLessEqual(torch.cuda.mem_get_info()[0], device_free - (4 << 20))
        self.assertTrue(bool(uncached.eq(2.0).all()))
        uncached.record_stream(torch.cuda.Stream())
        del uncached
        self.assertEqual(torch.cuda.mem_get_info()[0], device_free)
        # A block allocated while caching was on goes back to the cache.
        del cached
        self.assertEqual(torch.cuda.memory_reserved(), reserved)
        torch.cuda.caching_allocator_enable(True)
        again = torch.empty(1 << 20, device="cuda")
        del again
        self.assertGreaterEqual(torch.cuda.memory_reserved(), 4 << 20)

    def test_environment_variable_turns_caching_off(self) -> None:
        program = (
            "import torch\n"
            "t = torch.ones(1 << 20, device='cuda')\n"
            "print(torch._C._cuda_cudaCachingAllocator_is_enabled(),"
            " torch.cuda.memory_reserved(), float(t.sum()))\n"
        )
        # A 4 MiB request is served from a 20 MiB segment when cached.
        for value, expected in (("1", "False 0 1048576.0"), ("0", "True 20971520 1048576.0")):
            result = run_python(program, PYTORCH_NO_CUDA_MEMORY_CACHING=value)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stdout.split("\n")[-2], expected)

    def test_expandable_segments_grow_in_place(self) -> None:
        # The setting stock's out-of-memory message recommends, under both of its names:
        # one segment per stream, grown by mapping 20 MiB pages, unmapped by empty_cache.
        program = (
            "import warnings, torch\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            "    warnings.simplefilter('always')\n"
            "    torch.cuda.memory._record_memory_history(max_entries=100)\n"
            "    t = torch.ones(3 << 20, device='cuda')\n"
            "    u = torch.ones(3 << 20, device='cuda')\n"
            "    total = float((t + u).sum())\n"
            "    large = torch.cuda.memory_stats()['reserved_bytes.large_pool.current']\n"
            "    print(total, u.data_ptr() - t.data_ptr(), large)\n"
            "    snapshot = torch.cuda.memory._snapshot()\n"
            "    print([(s['is_expandable'], s['total_size']) for s in snapshot['segments']\n"
            "           if s['segment_type'] == 'large'])\n"
            "    try:\n"
            "        t.untyped_storage()._share_cuda_()\n"
            "    except RuntimeError as error:\n"
            "        print('sharing refused:', 'expandable_segments:False' in str(error))\n"
            "    del t, u\n"
            "    torch.cuda.empty_cache()\n"
            "    trace = torch.cuda.memory._snapshot()['device_traces'][0]\n"
            "    actions = {e['action'] for e in trace} & {'segment_map', 'segment_unmap'}\n"
            "    print(torch.cuda.memory_reserved(), sorted(actions))\n"
            "print([str(w.message) for w in caught if 'expandable' in str(w.message)])\n"
        )
        for variable in ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"):
            result = run_python(program, **{variable: "expandable_segments:True"})
            self.assertEqual(result.returncode, 0, result.stderr)
            values, segments, shared, released, warnings_text = result.stdout.splitlines()[-5:]
            # 12 MiB each for t, u and t + u, back to back: two 20 MiB pages mapped
            # (the sum's scratch maps a 2 MiB page of the small pool's segment).
            self.assertEqual(values, f"{float(6 << 20)} {12 << 20} {40 << 20}")
            self.assertEqual(segments, f"[(True, {40 << 20})]")
            # Not shared with other processes yet: refused, saying how to share it.
            self.assertEqual(shared, "sharing refused: True")
            self.assertEqual(released, "0 ['segment_map', 'segment_unmap']")
            self.assertEqual(warnings_text, "[]")


    def test_settings_changed_at_run_time(self) -> None:
        # torch._C._accelerator_setAllocatorSettings (behind stock's deprecated
        # torch.cuda.memory._set_allocator_settings): before the first allocation it waits
        # for the allocator; later, segments made from then on follow it.
        program = (
            "import torch\n"
            "torch._C._accelerator_setAllocatorSettings('expandable_segments:True')\n"
            "a = torch.ones(3 << 20, device='cuda')\n"
            "torch._C._accelerator_setAllocatorSettings('expandable_segments:False')\n"
            "with torch.cuda.stream(torch.cuda.Stream()):\n"
            "    b = torch.ones(3 << 20, device='cuda')\n"
            "segments = torch.cuda.memory._snapshot()['segments']\n"
            "print(sorted((s['is_expandable'], s['total_size']) for s in segments\n"
            "             if s['segment_type'] == 'large'))\n"
            "try:\n"
            "    torch._C._accelerator_setAllocatorSettings('backend:cudaMallocAsync')\n"
            "except RuntimeError as error:\n"
            "    print(str(error).splitlines()[0])\n"
        )
        result = run_python(program)
        self.assertEqual(result.returncode, 0, result.stderr)
        segments, error = result.stdout.splitlines()[-2:]
        # a: a 20 MiB page of an expandable segment; b: a 12 MiB segment of its own.
        self.assertEqual(segments, f"[(False, {12 << 20}), (True, {20 << 20})]")
        self.assertTrue(
            error.startswith(
                "invalid torch._C._accelerator_setAllocatorSettings='backend:cudaMallocAsync': "
                "only the native backend is available"
            ),
            error,
        )


class MemoryHistory(unittest.TestCase):
    def setUp(self) -> None:
        torch.cuda.empty_cache()  # so that each test's allocations take new segments

    def tearDown(self) -> None:
        torch.cuda.memory._record_memory_history(enabled=None, clear_history=True)

    def test_snapshot_names_the_allocating_function(self) -> None:
        torch.cuda.memory._record_memory_history(max_entries=1000, clear_history=True)
        self.assertTrue(torch._C._cuda_isHistoryEnabled())
        buffer = allocate_named_buffer()
        traceback = torch.cuda.memory._allocation_traceback(buffer.untyped_storage().data_ptr())
        self.assertIsNotNone(traceback)
        self.assertEqual(frame_names(traceback)[0], "allocate_named_buffer")

        snapshot = torch.cuda.memory._snapshot()
        address = buffer.data_ptr()
        blocks = [b for s in snapshot["segments"] for b in s["blocks"] if b["address"] == address]
        self.assertEqual(len(blocks), 1)
        self.assertEqual(blocks[0]["state"], "active_allocated")
        self.assertIn("allocate_named_buffer", frame_names(blocks[0]["frames"]))
        self.assertEqual(len(snapshot["device_traces"]), torch.cuda.device_count())
        trace = snapshot["device_traces"][0]
        allocs = [e for e in trace if e["action"] == "alloc" and e["addr"] == address]
        self.assertEqual(len(allocs), 1)
        self.assertEqual(allocs[0]["size"], 3 << 20)
        self.assertIn("allocate_named_buffer", frame_names(allocs[0]["frames"]))
        del buffer
        actions = [e["action"] for e in torch.cuda.memory._snapshot()["device_traces"][0]]
        self.assertIn("free_requested", actions)
        self.assertIn("free_completed", actions)
        self.assertIn("snapshot", actions)

    def test_dumped_snapshot_renders(self) -> None:
        torch.cuda.memory._record_memory_history(max_entries=100, clear_history=True)
        kept = [allocate_named_buffer() for _ in range(2)]
        del kept[0]
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "snapshot.pickle")
            torch.cuda.memory._dump_snapshot(path)
            with open(path, "rb") as f:
                snapshot = pickle.load(f)
        # The flame graph's lines, not its SVG (which fetches a script from the network).
        lines = _memory_viz.segments(snapshot, format_flamegraph=lambda lines: lines)
        self.assertIn("allocate_named_buffer", lines)
        self.assertIn("<html", _memory_viz.trace_plot(snapshot))
        self.assertIn("<html", _memory_viz.segment_plot(snapshot))
        self.assertIn("cudaMalloc", _memory_viz.trace(snapshot))

    def test_memory_metadata_labels_the_calling_threads_entries(self) -> None:
        torch.cuda.memory._record_memory_history(max_entries=100, clear_history=True)
        torch.cuda.memory._set_memory_metadata("phase=forward")
        self.assertEqual(torch.cuda.memory._get_memory_metadata(), "phase=forward")
        labelled = allocate_named_buffer()
        seen_by_other_thread: list[str] = []
        other = threading.Thread(
            target=lambda: seen_by_other_thread.append(torch.cuda.memory._get_memory_metadata())
        )
        other.start()
        other.join()
        torch.cuda.memory._set_memory_metadata("")
        plain = allocate_named_buffer()
        trace = torch.cuda.memory._snapshot()["device_traces"][0]
        metadata = {e["addr"]: e["user_metadata"] for e in trace if e["action"] == "alloc"}
        self.assertEqual(metadata[labelled.data_ptr()], "phase=forward")
        self.assertEqual(metadata[plain.data_ptr()], "")
        self.assertEqual(seen_by_other_thread, [""])

    def test_bounded_skipped_and_stopped(self) -> None:
        torch.cuda.memory._record_memory_history(
            max_entries=4, clear_history=True, skip_actions=["snapshot", "segment_alloc"]
        )
        for _ in range(3):
            allocate_named_buffer()
        trace = torch.cuda.memory._snapshot()["device_traces"][0]
        self.assertEqual(len(trace), 4)
        self.assertNotIn("snapshot", [e["action"] for e in trace])
        torch.cuda.memory._record_memory_history(enabled=None)
        self.assertFalse(torch._C._cuda_isHistoryEnabled())
        allocate_named_buffer()
        self.assertEqual(len(torch.cuda.memory._snapshot()["device_traces"][0]), 4)

    def test_state_keeps_stacks_without_a_trace(self) -> None:
        torch.cuda.memory._record_memory_history(enabled="state", clear_history=True)
        buffer = allocate_named_buffer()
        snapshot = torch.cuda.memory._snapshot()
        self.assertEqual(snapshot["device_traces"][0], [])
        frames = [
            b["frames"] for s in snapshot["segments"] for b in s["blocks"]
            if b["address"] == buffer.data_ptr()
        ]
        self.assertIn("allocate_named_buffer", frame_names(frames[0]))

    def test_legacy_boolean_form(self) -> None:
        torch.cuda.memory._record_memory_history(True, trace_alloc_max_entries=10)
        buffer = allocate_named_buffer()
        self.assertIsNotNone(torch.cuda.memory._allocation_traceback(buffer.data_ptr()))
        torch.cuda.memory._record_memory_history(False)
        self.assertFalse(torch._C._cuda_isHistoryEnabled())

    def test_bad_arguments_say_what_is_accepted(self) -> None:
        cases = [
            ({"enabled": "some"}, "expected state to be 'state', 'all', or None"),
            ({"context": "frames"}, "expected context to be 'state', 'alloc', 'all', or None"),
            ({"stacks": "cpp"}, "expected stacks to be 'python', or 'all'"),
            ({"skip_actions": ["freed"]}, "unknown action 'freed'"),
            ({"compile_context": True}, "compile_context=False"),
        ]
        for kwargs, message in cases:
            with self.subTest(**kwargs), self.assertRaisesRegex(RuntimeError, message):
                torch.cuda.memory._record_memory_history(**kwargs)
        self.assertFalse(torch._C._cuda_isHistoryEnabled())


class CublasWorkspace(unittest.TestCase):
    def tearDown(self) -> None:
        torch._C._cuda_resetCublasWorkspaceSize()
        torch._C._cuda_resetCublasLtWorkspaceSize()

    def test_lt_size_by_atens_rules(self) -> None:
        self.assertEqual(torch.backends.cuda.cublaslt_workspace_size(), 1 << 20)
        self.assertEqual(torch.backends.cuda.cublaslt_workspace_size(2 << 20), 2 << 20)
        torch._C._cuda_resetCublasLtWorkspaceSize()
        self.assertEqual(torch.backends.cuda.cublaslt_workspace_size(), 1 << 20)
        with self.assertRaisesRegex(RuntimeError, "must be non-negative, got -1"):
            torch.backends.cuda.cublaslt_workspace_size(-1)
        # Unified with the cuBLAS workspace (ATen's default): capped at its size, warned.
        torch.backends.cuda.cublas_workspace_size(1 << 19)
        with self.assertWarnsRegex(UserWarning, "exceeds CUBLAS workspace size of 524288"):
            self.assertEqual(torch.backends.cuda.cublaslt_workspace_size(), 1 << 19)
        read = "import torch; print(torch.backends.cuda.cublaslt_workspace_size())"
        for env, expected in (
            ({"CUBLASLT_WORKSPACE_SIZE": "4096"}, str(4 << 20)),
            ({"CUBLASLT_WORKSPACE_SIZE": "lots"}, str(1 << 20)),
            (
                {"CUBLASLT_WORKSPACE_SIZE": "4096", "CUBLAS_WORKSPACE_CONFIG": ":1024:1"},
                str(1 << 20),
            ),
            (
                {
                    "CUBLASLT_WORKSPACE_SIZE": "4096",
                    "CUBLAS_WORKSPACE_CONFIG": ":1024:1",
                    "TORCH_CUBLASLT_UNIFIED_WORKSPACE": "0",
                },
                str(4 << 20),
            ),
        ):
            with self.subTest(**env):
                result = run_python(read, **env)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertEqual(result.stdout.strip(), expected)
                if env["CUBLASLT_WORKSPACE_SIZE"] == "lots":
                    self.assertIn("invalid CUBLASLT_WORKSPACE_SIZE", result.stderr)

    def test_size_is_set_reset_and_configured(self) -> None:
        major = torch.cuda.get_device_properties(0).major
        default = 32 << 20 if major >= 9 else (4096 * 2 + 16 * 8) << 10  # ATen's
        self.assertEqual(torch.backends.cuda.cublas_workspace_size(), default)
        self.assertEqual(torch.backends.cuda.cublas_workspace_size(1 << 20), 1 << 20)
        torch._C._cuda_resetCublasWorkspaceSize()
        self.assertEqual(torch.backends.cuda.cublas_workspace_size(), default)
        with self.assertRaisesRegex(RuntimeError, "must be non-negative, got -1"):
            torch.backends.cuda.cublas_workspace_size(-1)
        configured = run_python(
            "import torch; print(torch.backends.cuda.cublas_workspace_size())",
            CUBLAS_WORKSPACE_CONFIG=":4096:8",
        )
        self.assertEqual(configured.returncode, 0, configured.stderr)
        self.assertEqual(configured.stdout.strip(), str(32 << 20))

    @unittest.skipUnless(SIMULATED, "the real variant has a cuBLAS handle (next test)")
    def test_simulated_variant_has_no_blas_handle(self) -> None:
        with self.assertRaisesRegex(RuntimeError, "simulated variant of torch_cuda has no cuBLAS"):
            torch.cuda.current_blas_handle()

    @unittest.skipIf(SIMULATED, "the simulated variant has no cuBLAS: its GEMMs run on the host")
    def test_workspaces_come_from_the_caching_allocator(self) -> None:
        handle = torch.cuda.current_blas_handle()
        self.assertNotEqual(handle, 0)
        self.assertEqual(torch.cuda.current_blas_handle(), handle)  # this thread's
        a = torch.randn(64, 64, device="cuda")
        torch._C._cuda_clearCublasWorkspaces()
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.backends.cuda.cublas_workspace_size(64 << 20)
        with torch.cuda.stream(torch.cuda.Stream()):
            product = a @ a  # binds the handle: a 64 MiB workspace for this stream
        torch.cuda.synchronize()
        grown = torch.cuda.memory_allocated() - before - product.nbytes
        self.assertGreaterEqual(grown, 64 << 20)
        torch._C._cuda_clearCublasWorkspaces()
        self.assertEqual(torch.cuda.memory_allocated() - before, product.nbytes)


if __name__ == "__main__":
    unittest.main(verbosity=2)
