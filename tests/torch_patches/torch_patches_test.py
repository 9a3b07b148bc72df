"""The torch_patches ledger against the pinned torch (torch_cuda active via sitecustomize)."""

from __future__ import annotations

import os
import sys
import tempfile
import types
import unittest

import torch
import torch.distributed as dist

from torch_cuda import torch_patches
from torch_cuda.torch_patches import (
    cuda_storage,
    cudnn_module,
    gloo_device_staging,
    legacy_cuda_tensor_types,
    load_before_torch_c,
    nccl_process_group,
    new_device_cpp_extension,
    raw_stream_for_dynamo,
    torch_c_names,
    version_cuda,
)
from torch_cuda.torch_patches._after_import import run_after_import


class Ledger(unittest.TestCase):
    def test_every_entry_is_documented(self) -> None:
        for entry in torch_patches.ENTRIES:
            for field in ("NAME", "WHAT", "WHY", "UPSTREAM"):
                self.assertTrue(getattr(entry, field), f"{entry.__name__}.{field}")
            self.assertIn("Upstream:", entry.__doc__)

    def test_all_applied_in_order(self) -> None:
        self.assertEqual(torch_patches.applied(), [e.NAME for e in torch_patches.ENTRIES])

    def test_pinned_version_is_this_torch(self) -> None:
        self.assertEqual(torch.__version__, torch_patches.PINNED_TORCH_VERSION)

    def test_other_torch_version_is_refused(self) -> None:
        with self.assertRaises(torch_patches.TorchVersionMismatchError) as caught:
            torch_patches.check_torch_version("2.14.0+cpu")
        self.assertIn("2.14.0+cpu", str(caught.exception))
        self.assertIn("2.13.0+cpu", str(caught.exception))
        for entry in (
            load_before_torch_c,
            torch_c_names,
            raw_stream_for_dynamo,
            cuda_storage,
            gloo_device_staging,
            nccl_process_group,
        ):
            with self.assertRaisesRegex(torch_patches.TorchVersionMismatchError, "2.13.0"):
                entry.check("2.12.1", torch._C)

    def test_probe_failure_names_the_entry(self) -> None:
        # torch._C now has the CUDA names: the entry's probe says it would not apply again.
        with self.assertRaisesRegex(torch_patches.PatchNoLongerAppliesError, "torch_c_names"):
            torch_c_names.check(torch.__version__, torch._C)
        with self.assertRaisesRegex(torch_patches.PatchNoLongerAppliesError, "version_cuda"):
            version_cuda.check(torch.__version__, types.SimpleNamespace(cuda="12.8"))
        with self.assertRaisesRegex(torch_patches.PatchNoLongerAppliesError, "cudnn_module"):
            cudnn_module.check(torch.__version__, torch._C)

    def test_probes_hold_for_the_pinned_torch(self) -> None:
        load_before_torch_c.check(torch.__version__, torch._C)
        raw_stream_for_dynamo.check(torch.__version__, torch._C)
        cuda_storage.check(torch.__version__, torch._C)
        gloo_device_staging.check(torch.__version__, torch._C)
        nccl_process_group.check(torch.__version__, torch._C)
        legacy_cuda_tensor_types.check(torch.__version__, torch._C)
        new_device_cpp_extension.check(torch.__version__, torch._C)

    def test_run_after_import_runs_every_callback_in_order(self) -> None:
        # Two entries patching one module: both run (one meta-path finder per module).
        with tempfile.TemporaryDirectory() as directory:
            with open(os.path.join(directory, "ledger_target.py"), "w", encoding="utf-8") as f:
                f.write("VALUE = 1\n")
            sys.path.insert(0, directory)
            try:
                ran: list[str] = []
                run_after_import("ledger_target", lambda m: ran.append(f"first {m.VALUE}"))
                run_after_import("ledger_target", lambda m: ran.append(f"second {m.VALUE}"))
                import ledger_target  # noqa: F401

                self.assertEqual(ran, ["first 1", "second 1"])
                run_after_import("ledger_target", lambda m: ran.append("now"))
                self.assertEqual(ran[-1], "now")  # already imported: runs at once
            finally:
                sys.path.remove(directory)
                sys.modules.pop("ledger_target", None)

    def test_load_before_torch_c_hooks_are_ours(self) -> None:
        # Backward needs the CUDA hooks (device threads, pinned memory): the stub would fail.
        x = torch.ones(3, device="cuda", requires_grad=True)
        (x * 2).sum().backward()
        self.assertTrue(torch.equal(x.grad.cpu(), torch.full((3,), 2.0)))
        self.assertTrue(torch.ones(2).pin_memory().is_pinned())

    def test_raw_stream_for_dynamo(self) -> None:
        from torch._dynamo.device_interface import get_interface_for_device

        stream = get_interface_for_device("cuda").get_raw_stream(0)
        self.assertIsInstance(stream, int)
        model = torch.nn.Linear(2, 2).cuda()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        model(torch.ones(1, 2, device="cuda")).sum().backward()
        optimizer.step()  # imports torch._dynamo

    def test_cuda_storage(self) -> None:
        self.assertEqual(torch.UntypedStorage(4, device="cuda").device.type, "cuda")
        self.assertEqual(torch.UntypedStorage(device="cuda:1").device, torch.device("cuda", 1))
        self.assertEqual(torch.ones(2).untyped_storage().cuda().device.type, "cuda")

    def test_cuda_storage_resize(self) -> None:
        x = torch.arange(4.0, device="cuda")
        storage = x.untyped_storage()
        self.assertIs(storage.resize_(32), storage)
        # The tensor shares the resized StorageImpl: its elements kept, the storage grown.
        self.assertEqual(x.untyped_storage().nbytes(), 32)
        self.assertEqual(x.cpu().tolist(), [0.0, 1.0, 2.0, 3.0])
        storage.resize_(8)
        self.assertEqual(torch.empty(0, device="cuda").set_(storage).tolist(), [0.0, 1.0])
        storage.resize_(0)  # as FSDP frees a parameter's memory
        self.assertEqual(storage.nbytes(), 0)
        with self.assertRaisesRegex(ValueError, ">= 0"):
            storage.resize_(-1)
        cpu = torch.ones(2).untyped_storage()
        self.assertEqual(cpu.resize_(16).nbytes(), 16)  # other devices: stock resize_

    def test_cuda_storage_share(self) -> None:
        # What torch.multiprocessing's reducer gets for a CUDA tensor put on a queue:
        # stock's 8 fields, handles of CUDA IPC's size (tests/cuda_key/test_ipc.py sends
        # tensors to other processes).
        storage = torch.arange(6.0, device="cuda")[2:].untyped_storage()
        device, handle, size, offset, counter, counter_offset, event, sync = storage._share_cuda_()
        self.assertEqual((device, size, len(handle), len(event), sync), (0, 24, 64, 64, True))
        self.assertIsInstance(counter, bytes)
        self.assertGreaterEqual(offset, 0)
        self.assertGreaterEqual(counter_offset, 0)
        empty = torch.empty(0, device="cuda").untyped_storage()._share_cuda_()
        self.assertEqual(empty[1:3], (None, 0))
        with self.assertRaisesRegex(RuntimeError, "incorrect handle size"):
            torch.UntypedStorage._new_shared_cuda(0, b"x", 4, 0, counter, 0, event, True)

    def test_gloo_device_staging(self) -> None:
        # One process: gloo's CUDA allreduce (a SIGSEGV without the entry) and
        # reduce_scatter go through the staging backend; the CPU keeps gloo itself.
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
        with tempfile.TemporaryDirectory() as directory:
            dist.init_process_group(
                "gloo", init_method=f"file://{directory}/init", rank=0, world_size=1
            )
            try:
                group, gloo = dist.group.WORLD, dist.ProcessGroupGloo
                self.assertIsInstance(group._get_backend(torch.device("cpu")), gloo)
                self.assertNotIsInstance(group._get_backend(torch.device("cuda")), gloo)
                tensor = torch.arange(4.0, device="cuda")
                dist.all_reduce(tensor, op=dist.ReduceOp.MAX)
                self.assertEqual(tensor.cpu().tolist(), [0.0, 1.0, 2.0, 3.0])
                output = torch.empty(4, device="cuda")
                dist.reduce_scatter_tensor(output, tensor * 2)
                self.assertEqual(output.cpu().tolist(), [0.0, 2.0, 4.0, 6.0])
            finally:
                dist.destroy_process_group()

    def test_nccl_process_group(self) -> None:
        # One process: init_process_group("nccl") makes _CUDAC's process group (stock's
        # "Distributed package doesn't have NCCL built in" without the entry).
        self.assertTrue(dist.is_nccl_available())
        self.assertEqual(torch.cuda.nccl.version(), (2, 32, 3, "simulated"))
        self.assertEqual(
            dist.distributed_c10d._get_default_timeout(dist.Backend.NCCL),
            nccl_process_group.DEFAULT_TIMEOUT,
        )
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # the simulated transport's
        with tempfile.TemporaryDirectory() as directory:
            dist.init_process_group(
                "nccl", init_method=f"file://{directory}/init", rank=0, world_size=1
            )
            try:
                backend = dist.group.WORLD._get_backend(torch.device("cuda"))
                self.assertIsInstance(backend, dist.ProcessGroupNCCL)
                self.assertIs(dist.ProcessGroupNCCL, torch._C._distributed_c10d.ProcessGroupNCCL)
                self.assertEqual(dist.get_backend(), "nccl")
                tensor = torch.arange(4.0, device="cuda")
                dist.all_reduce(tensor, op=dist.ReduceOp.AVG)
                self.assertEqual(tensor.cpu().tolist(), [0.0, 1.0, 2.0, 3.0])
            finally:
                dist.destroy_process_group()

    def test_cudnn_module(self) -> None:
        import torch.backends.cudnn.rnn

        import _CUDAC

        compiled, running = _CUDAC._cudnn_compile_version(), _CUDAC._cudnn_runtime_version()
        self.assertIs(torch.backends.cudnn._cudnn, torch._C._cudnn)
        self.assertEqual(torch.backends.cudnn.version(), running)
        self.assertEqual(torch._C._cudnn.getCompileVersion(), cudnn_module.version_tuple(compiled))
        self.assertEqual(cudnn_module.version_tuple(92700), (9, 27, 0))
        self.assertEqual(torch.backends.cudnn.rnn.get_cudnn_mode("LSTM"), 2)
        self.assertTrue(torch.backends.cudnn.is_available())

    def test_version_cuda(self) -> None:
        import _CUDAC

        self.assertEqual(torch.version.cuda, _CUDAC.cuda_version)

    def test_new_device_cpp_extension(self) -> None:
        # RFC-0045's name in torch; the setuptools side builds a torch_cuda extension.
        import torch.utils.cpp_extension

        from torch_core.setuptools_build import DeviceExtension

        extension = torch.utils.cpp_extension.NewDeviceCppExtension("my_ops", ["my_ops.cu"])
        self.assertIsInstance(extension, DeviceExtension)
        self.assertEqual((extension.name, extension.sources), ("my_ops", ["my_ops.cu"]))
        self.assertEqual(extension.toolchain.device_type, "cuda")

    def test_legacy_cuda_tensor_types(self) -> None:
        with self.assertWarnsRegex(UserWarning, "DtypeTensor constructors are no longer"):
            empty = torch.cuda.FloatTensor(2, 3)
        self.assertEqual(
            (empty.device.type, empty.dtype, empty.shape), ("cuda", torch.float32, (2, 3))
        )
        longs = torch.cuda.LongTensor([1, 2])
        self.assertEqual((longs.device.type, longs.dtype), ("cuda", torch.int64))
        self.assertEqual(longs.cpu().tolist(), [1, 2])
        self.assertTrue(isinstance(longs, torch.cuda.LongTensor))
        self.assertEqual(torch.cuda.HalfTensor([1.5]).dtype, torch.float16)
        sparse = torch.cuda.sparse.FloatTensor(
            torch.tensor([[0, 1], [1, 0]], device="cuda"),
            torch.tensor([2.0, 3.0], device="cuda"),
            torch.Size([2, 2]),
        )
        self.assertTrue(sparse.is_sparse)
        self.assertEqual(sparse.device.type, "cuda")
        self.assertEqual(sparse.to_dense().cpu().tolist(), [[0.0, 2.0], [3.0, 0.0]])
        with self.assertRaisesRegex(TypeError, "legacy tensor types"):
            import _CUDAC

            _CUDAC._install_legacy_tensor_constructors([torch.FloatTensor])

    def test_markdown_table(self) -> None:
        table = torch_patches.markdown_table()
        for entry in torch_patches.ENTRIES:
            self.assertIn(f"`{entry.NAME}`", table)
        # The README section, for the lead to paste (TEST_UNDECLARED_OUTPUTS_DIR in Bazel).
        out = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
        if out:
            with open(os.path.join(out, "torch_patches_table.md"), "w", encoding="utf-8") as f:
                f.write(table)
        sys.stdout.write(table)


if __name__ == "__main__":
    unittest.main(verbosity=2)
