"""Bad input on the CUDA key (simulated torch_cuda, 2 devices of 64 MiB): bad arguments
to ops, streams, events, devices and graphs. Bad settings and processes are in
test_bad_environment.py."""

from __future__ import annotations

import os
import sys
import unittest
from collections.abc import Callable

import torch
from child_python import run_python

import torch_cuda

F = torch.nn.functional
SIMULATED = torch_cuda.build_info().variant == "simulated"
# A GPU's device-side assert leaves its context unusable (every later call fails); a
# simulated device stays usable. On a GPU such cases run in a child process each.
STICKY_DEVICE_ERRORS = not SIMULATED
# The simulated variant's tests have 2 devices; a GPU machine may have 1.
needs_two_devices = unittest.skipIf(
    torch.cuda.device_count() < 2, f"needs 2 CUDA devices, found {torch.cuda.device_count()}"
)



def _ones(*shape: int, d: str, **options: object) -> torch.Tensor:
    return torch.ones(*shape, device=d, **options)


def _overlapping_add(d: str) -> torch.Tensor:
    x = torch.arange(5.0, device=d)
    return x[1:].add_(x[:-1])


# Checks that stock makes before any kernel runs, the same on every device: the CUDA key
# must give the CPU's error type and message exactly.
DEVICE_INDEPENDENT_CASES: dict[str, Callable[[str], object]] = {
    "negative size": lambda d: torch.empty(-1, device=d),
    "huge size": lambda d: torch.empty(1 << 62, device=d),
    "view of another size": lambda d: _ones(6, d=d).view(7),
    "reshape with two -1": lambda d: _ones(6, d=d).reshape(-1, -1),
    "expand a non-singleton": lambda d: _ones(3, d=d).expand(2, 2),
    "matmul shapes": lambda d: _ones(2, 3, d=d) @ _ones(4, 5, d=d),
    "matmul dtypes": lambda d: _ones(2, 2, d=d) @ _ones(2, 2, d=d, dtype=torch.double),
    "in-place broadcast": lambda d: _ones(3, d=d).add_(_ones(2, 3, d=d)),
    "in-place overlap": _overlapping_add,
    "in-place cast": lambda d: _ones(3, d=d, dtype=torch.long).div_(2.5),
    "mean of integers": lambda d: _ones(3, d=d, dtype=torch.long).mean(),
    "bool subtraction": lambda d: _ones(2, d=d, dtype=torch.bool) - _ones(2, d=d, dtype=torch.bool),
    "integer to a negative power": lambda d: torch.tensor([2], device=d) ** -1,
    "lerp of two dtypes": lambda d: torch.lerp(
        _ones(2, d=d), _ones(2, d=d, dtype=torch.double), 0.5
    ),
    "select out of range": lambda d: _ones(3, d=d)[5],
    "dimension out of range": lambda d: _ones(3, d=d).softmax(dim=2),
    "unsqueeze out of range": lambda d: _ones(3, d=d).unsqueeze(5),
    "cat sizes": lambda d: torch.cat([_ones(2, 3, d=d), _ones(2, 4, d=d)]),
    "stack sizes": lambda d: torch.stack([_ones(2, d=d), _ones(3, d=d)]),
    "index_select with float index": lambda d: _ones(3, d=d).index_select(0, _ones(2, d=d)),
    "gather with fewer dims": lambda d: _ones(2, 3, d=d).gather(1, _ones(2, d=d, dtype=torch.long)),
    "topk larger than the size": lambda d: _ones(3, d=d).topk(5),
    "item of two elements": lambda d: _ones(2, d=d).item(),
    "arange step sign": lambda d: torch.arange(0, 10, -1, device=d),
    "linspace negative steps": lambda d: torch.linspace(0, 1, -1, device=d),
    "randint empty range": lambda d: torch.randint(5, 2, (3,), device=d),
    "normal negative std": lambda d: torch.normal(0.0, -1.0, (3,), device=d),
    "conv2d of a vector": lambda d: F.conv2d(_ones(3, d=d), _ones(1, 1, 2, 2, d=d)),
    "cross_entropy batch sizes": lambda d: F.cross_entropy(
        _ones(3, 5, d=d), _ones(2, d=d, dtype=torch.long)
    ),
    "nll_loss target out of range": lambda d: F.nll_loss(
        _ones(2, 3, d=d), torch.tensor([0, 5], device=d)
    ),
}

# Out-of-range indices read on the device: stock's kernels assert there, and the error
# comes at the next synchronization as stock's torch.AcceleratorError "CUDA error:
# device-side assert triggered" (with the bad index here; unlike a GPU's device-side
# assert, it leaves the process usable).
DEVICE_SIDE_INDEX_CASES: dict[str, Callable[[], object]] = {
    "index": lambda: _ones(3, d="cuda")[torch.tensor([5], device="cuda")],
    "negative index": lambda: _ones(3, d="cuda")[torch.tensor([-4], device="cuda")],
    "index_put_": lambda: _ones(3, d="cuda").index_put_(
        (torch.tensor([5], device="cuda"),), torch.tensor(1.0, device="cuda")
    ),
    "gather": lambda: _ones(3, d="cuda").gather(0, torch.tensor([7], device="cuda")),
    "scatter_": lambda: _ones(3, d="cuda").scatter_(0, torch.tensor([4], device="cuda"), 1.0),
    "embedding": lambda: F.embedding(torch.tensor([9], device="cuda"), _ones(4, 3, d="cuda")),
    "index_select": lambda: _ones(3, d="cuda").index_select(0, torch.tensor([4], device="cuda")),
    "take": lambda: _ones(3, d="cuda").take(torch.tensor([4], device="cuda")),
}


class BadInput(unittest.TestCase):
    def test_device_independent_checks_match_the_cpu(self) -> None:
        for name, call in DEVICE_INDEPENDENT_CASES.items():
            with self.subTest(case=name):
                with self.assertRaises(Exception) as on_cpu:
                    call("cpu")
                with self.assertRaises(Exception) as on_cuda:
                    call("cuda")
                self.assertIs(type(on_cuda.exception), type(on_cpu.exception))
                self.assertEqual(str(on_cuda.exception), str(on_cpu.exception))
        self.assertEqual(_ones(2, d="cuda").sum().item(), 2.0)  # still usable

    def test_messages_that_name_the_cuda_kernel(self) -> None:
        # Where stock's CUDA message differs from its CPU one, stock CUDA's is given.
        cases = {
            "embedding of float indices": (
                lambda: F.embedding(_ones(2, d="cuda"), _ones(4, 3, d="cuda")),
                RuntimeError,
                "but got torch.cuda.FloatTensor instead",
            ),
            "bitwise_and of floats": (
                lambda: _ones(2, d="cuda") & _ones(2, d="cuda"),
                NotImplementedError,
                "\"bitwise_and_cuda\" not implemented for 'Float'",
            ),
            "masked_fill with a float mask": (
                lambda: _ones(3, d="cuda").masked_fill(_ones(3, d="cuda"), 0.0),
                RuntimeError,
                "masked_fill only supports boolean masks, but got dtype Float",
            ),
        }
        for name, (call, error, message) in cases.items():
            with self.subTest(case=name), self.assertRaisesRegex(error, message):
                call()

    def test_out_of_range_indices_raise_at_the_next_synchronize(self) -> None:
        for name, call in DEVICE_SIDE_INDEX_CASES.items():
            with self.subTest(case=name):
                if STICKY_DEVICE_ERRORS:
                    child = run_python(
                        "import test_bad_input, torch\n"
                        f"test_bad_input.DEVICE_SIDE_INDEX_CASES[{name!r}]()\n"
                        "torch.cuda.synchronize()",
                        PYTHONPATH=os.pathsep.join(sys.path),
                    )
                    self.assertNotEqual(child.returncode, 0)
                    self.assertIn("CUDA error: device-side assert triggered", child.stderr)
                    continue
                with self.assertRaises(torch.AcceleratorError) as caught:
                    call()
                    torch.cuda.synchronize()
                message = str(caught.exception)
                self.assertTrue(
                    message.startswith("CUDA error: device-side assert triggered ("), message
                )
                self.assertIn("is out of bounds for dimension", message)
                self.assertNotIn("Exception raised from", message)  # no C++ backtrace
                self.assertEqual(caught.exception.error_code, 710)  # cudaErrorAssert
                self.assertEqual((_ones(2, d="cuda") + 1).sum().item(), 4.0)

    def test_use_after_free_is_an_illegal_memory_access(self) -> None:
        # A kernel that reads memory the allocator gave back (caching off, so the free
        # reaches the runtime) through a storage made from its stale pointer.
        if not SIMULATED:
            self.skipTest(
                "on a GPU whether a freed range still faults is the driver's choice, and the "
                "error would end the process"
            )
        child = run_python(
            "import torch\n"
            "t = torch.ones(1 << 20, device='cuda')\n"
            "ptr = t.data_ptr()\n"
            "del t\n"
            "device = torch.device('cuda', 0)\n"
            "storage = torch._C._construct_storage_from_data_pointer(ptr, device, 4 << 20)\n"
            "stale = torch.empty(0, device='cuda').set_(storage, 0, (1 << 20,), (1,))\n"
            "try:\n"
            "    stale.sum().item()\n"
            "except torch.AcceleratorError as error:\n"
            "    print(error.error_code, str(error).splitlines()[0][:54])\n"
            "print(torch.ones(4, device='cuda').sum().item())\n",
            PYTORCH_NO_CUDA_MEMORY_CACHING="1",
        )
        self.assertEqual(child.returncode, 0, child.stderr)
        error, usable = child.stdout.splitlines()[-2:]
        # cudaErrorIllegalAddress, in stock's words; the simulated device stays usable.
        self.assertEqual(error, "700 CUDA error: an illegal memory access was encountered (")
        self.assertEqual(usable, "4.0")

    def test_rng_state_misuse(self) -> None:
        torch.cuda.init()  # before it, stock queues set_rng_state and its error
        with self.assertRaisesRegex(RuntimeError, "^RNG state is wrong size$"):
            torch.cuda.set_rng_state(torch.zeros(3, dtype=torch.uint8))
        with self.assertRaisesRegex(TypeError, "RNG state must be a torch.ByteTensor"):
            torch.cuda.set_rng_state(torch.zeros(16))
        with self.assertRaisesRegex(
            RuntimeError, "Expected a 'cuda' device type for generator but found 'cpu'"
        ):
            torch.randn(3, device="cuda", generator=torch.Generator())

    @needs_two_devices
    def test_event_recorded_on_another_devices_stream(self) -> None:
        event = torch.cuda.Event()
        event.record(torch.cuda.current_stream(0))
        with self.assertRaisesRegex(
            RuntimeError, "^Event device 0 does not match recording stream's device 1.$"
        ):
            event.record(torch.cuda.Stream(device=1))

    def test_elapsed_time_without_timing(self) -> None:
        start, end = torch.cuda.Event(), torch.cuda.Event()
        start.record()
        end.record()
        end.synchronize()
        with self.assertRaisesRegex(
            RuntimeError, "Both events must be created with argument 'enable_timing=True'."
        ):
            start.elapsed_time(end)

    def test_device_strings_and_allocator_arguments(self) -> None:
        with self.assertRaisesRegex(RuntimeError, "Invalid device string: 'cuda:x'"):
            torch.ones(1, device="cuda:x")
        torch.cuda.init()
        with self.assertRaisesRegex(RuntimeError, "Invalid device argument 5: did you call init?"):
            torch.cuda.memory_stats(5)
        with self.assertRaisesRegex(ValueError, "Invalid fraction value: 2.0. Allowed range: 0~1"):
            torch.cuda.set_per_process_memory_fraction(2.0)
        with self.assertRaisesRegex(TypeError, "Invalid type for fraction argument"):
            torch.cuda.set_per_process_memory_fraction("half")  # type: ignore[arg-type]

    def test_invalid_device_index(self) -> None:
        # Stock raises cudaSetDevice's error: torch.AcceleratorError, a RuntimeError.
        for call in (lambda: torch.ones(1, device="cuda:7"), lambda: torch.cuda.set_device(7),
                     lambda: torch.cuda.Stream(device=7)):
            with self.assertRaisesRegex(
                torch.AcceleratorError, r"CUDA error: invalid device ordinal \(cuda device index 7"
            ):
                call()
        with self.assertRaisesRegex(AssertionError, "Invalid device id"):
            torch.cuda.get_device_properties(7)
        self.assertEqual(torch.ones(1, device="cuda:0").device.index, 0)  # still usable

    def test_shape_checks_that_a_shortcut_must_not_skip(self) -> None:
        # beta=0 does not read self, and an empty destination copies nothing, but stock
        # checks the shapes all the same: the same error as on the CPU.
        def ones(*shape: int, device: str) -> torch.Tensor:
            return torch.ones(*shape, device=device)

        cases = {
            "addmm beta=0": lambda d: torch.addmm(
                ones(5, 7, device=d), ones(2, 3, device=d), ones(3, 4, device=d), beta=0
            ),
            "baddbmm beta=0": lambda d: torch.baddbmm(
                ones(5, 7, 1, device=d), ones(1, 2, 3, device=d), ones(1, 3, 4, device=d), beta=0
            ),
            "addmv beta=0": lambda d: torch.addmv(
                ones(5, device=d), ones(2, 3, device=d), ones(3, device=d), beta=0
            ),
            "copy_ into empty": lambda d: torch.empty(0, device=d).copy_(ones(3, device=d)),
            "copy_ from a larger shape": lambda d: torch.empty(3, device=d).copy_(torch.ones(2, 3)),
        }
        for name, call in cases.items():
            with self.subTest(case=name):
                with self.assertRaises(RuntimeError) as on_cpu:
                    call("cpu")
                with self.assertRaises(RuntimeError) as on_cuda:
                    call("cuda")
                self.assertEqual(str(on_cuda.exception), str(on_cpu.exception))

    @needs_two_devices
    def test_record_stream_of_another_device_does_not_leak(self) -> None:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        before = torch.cuda.memory_allocated(0)
        t = torch.ones(1 << 18, device="cuda:0")
        other = torch.cuda.Stream(device=1)
        t.record_stream(other)
        del t  # its free records an event on device 1's stream
        torch.cuda.synchronize(1)
        torch.cuda.synchronize(0)
        self.assertEqual(torch.cuda.memory_allocated(0), before)
        torch.cuda.empty_cache()
        self.assertEqual(torch.cuda.memory_reserved(0), 0)

    def test_elapsed_time_of_unrecorded_events(self) -> None:
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        with self.assertRaisesRegex(RuntimeError, "Both events must be recorded"):
            start.elapsed_time(end)

    @needs_two_devices
    def test_cross_device_op_without_copy(self) -> None:
        a = torch.ones(2, device="cuda:0")
        b = torch.ones(2, device="cuda:1")
        with self.assertRaisesRegex(
            RuntimeError, r"(?i)same device|different devices|cuda:0.*cuda:1"
        ):
            _ = a + b
        with self.assertRaisesRegex(RuntimeError, r"(?i)same device|different devices|cpu"):
            _ = a + torch.ones(2)

    @needs_two_devices
    def test_mixed_devices_raise_before_the_cpu_fallback(self) -> None:
        # The fallback moves every argument to the CPU: it checks first that they share a
        # device, as stock's kernels do; a 0-dim CPU tensor is a scalar and may join.
        a = torch.randn(3, 3)
        on_0, on_1 = a.cuda(), a.to("cuda:1")
        cases = {
            "mm, CPU operand": (lambda: on_0 @ a, "mat2 is on cpu, different from .* on cuda:0"),
            "mm, CPU self": (lambda: a @ on_0, "mat2 is on cuda:0, different from .* on cpu"),
            "mm, two devices": (lambda: on_0 @ on_1, "mat2 is on cuda:1"),
            "cdist": (lambda: torch.cdist(on_0, a), "x2 is on cpu"),
        }
        for name, (call, message) in cases.items():
            with self.subTest(case=name):
                expected = "Expected all tensors to be on the same device, but got " + message
                with self.assertRaisesRegex(RuntimeError, expected):
                    call()
        # A convolution that cuDNN would run compares its operands' types first, as stock's.
        types = r"Input type \(torch.cuda.FloatTensor\) and weight type \(torch.FloatTensor\)"
        with self.assertRaisesRegex(RuntimeError, types):
            torch.nn.functional.conv2d(on_0.view(1, 1, 3, 3), torch.ones(1, 1, 2, 2))
        scalar = torch.tensor(2.0)
        on_device = torch.igamma(on_0.abs(), scalar)
        torch.testing.assert_close(on_device.cpu(), torch.igamma(a.abs(), scalar))

    def test_copy_from_a_partly_overlapping_view(self) -> None:
        # Stock's TensorIterator refuses it (the result would depend on the copy order).
        x = torch.arange(5.0, device="cuda")
        with self.assertRaisesRegex(RuntimeError, "unsupported operation: some elements of"):
            x[1:].copy_(x[:-1])
        x.copy_(x)  # the same memory exactly is fine
        self.assertEqual(x.tolist(), [0.0, 1.0, 2.0, 3.0, 4.0])

    def test_oom_is_clear_and_recoverable(self) -> None:
        torch.cuda.init()
        keep = torch.empty(16 << 20, dtype=torch.uint8, device="cuda")
        more_than_the_device = torch.cuda.get_device_properties(0).total_memory + (1 << 30)
        with self.assertRaises(torch.OutOfMemoryError) as caught:
            torch.empty(more_than_the_device, dtype=torch.uint8, device="cuda")
        self.assertRegex(str(caught.exception), r"(?i)out of memory")
        del keep
        torch._C._cuda_clearCublasWorkspaces()  # earlier tests' GEMMs hold workspaces
        torch.cuda.empty_cache()
        self.assertEqual(torch.cuda.memory_reserved(), 0)
        x = torch.ones(1 << 20, device="cuda")  # the process is still usable
        self.assertEqual(x.sum().item(), float(1 << 20))

    def test_features_not_provided_yet_refuse_clearly(self) -> None:
        add = torch.cuda.jiterator._create_jit_fn(
            "template <typename T> T add(T x, T y) { return x + y; }"
        )
        with self.assertRaisesRegex(RuntimeError, r"does not support torch\.cuda\.jiterator"):
            add(_ones(2, d="cuda"), _ones(2, d="cuda"))
        self.assertEqual(float(_ones(2, d="cuda").sum()), 2.0)

    def test_cuda_graph_misuse(self) -> None:
        graph = torch.cuda.CUDAGraph()
        with self.assertRaisesRegex(RuntimeError, "without a preceding successful capture"):
            graph.replay()
        with self.assertRaisesRegex(RuntimeError, "Unknown capture error mode"):
            graph.capture_begin(capture_error_mode="strict")
        with self.assertRaisesRegex(RuntimeError, "must be captured on a non-default stream"):
            graph.capture_begin()
        with torch.cuda.stream(torch.cuda.Stream()):
            graph.capture_begin()
            with self.assertRaisesRegex(RuntimeError, "not permitted when stream is capturing"):
                torch.cuda.current_stream().synchronize()
            with self.assertRaisesRegex(RuntimeError, "previous error during capture"):
                graph.capture_end()
        self.assertFalse(torch.cuda.is_current_stream_capturing())
        self.assertEqual(float(_ones(2, d="cuda").sum()), 2.0)  # still usable



if __name__ == "__main__":
    unittest.main(verbosity=2)
