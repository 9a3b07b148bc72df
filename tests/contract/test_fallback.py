"""The CPU fallback: operators without a native kernel run on the CPU, are counted, and
obey the policy (allow / warn once per operator / error)."""

import unittest
import warnings

import torch
from backend import DEVICE, main, mod, run_in_child

# Operators that no backend runs natively yet (their DispatchStubs are not among the
# kernel engine's), so they go through the fallback. When one becomes native, pick another.
NOT_NATIVE = (lambda x: torch.special.gammainc(x, x)), "aten::igamma"
NOT_NATIVE_2 = torch.i0, "aten::i0"
NOT_NATIVE_3 = (lambda x: torch.special.gammaincc(x, x)), "aten::igammac"


def fell_back(counts: dict, op: str) -> int:
    return sum(n for name, n in counts.items() if name == op or name.startswith(op + "."))


class Fallback(unittest.TestCase):
    def setUp(self) -> None:
        mod.set_fallback_policy("allow")
        mod.reset_fallback_counts()

    def tearDown(self) -> None:
        mod.set_fallback_policy("allow")

    def test_unimplemented_op_runs_on_cpu_and_is_counted(self) -> None:
        op, name = NOT_NATIVE
        x = torch.rand(5) + 0.5
        y = op(x.to(DEVICE))
        self.assertEqual(y.device.type, DEVICE)
        torch.testing.assert_close(y.cpu(), op(x))
        self.assertGreaterEqual(fell_back(mod.fallback_counts(), name), 1)

    def test_native_ops_are_not_counted(self) -> None:
        x = torch.ones(4, device=DEVICE)
        (x + x).sum().item()
        x.view(2, 2).t().contiguous()
        counts = mod.fallback_counts()
        for op in (
            "aten::add",
            "aten::sum",
            "aten::view",
            "aten::empty",
            "aten::copy_",
            "aten::_local_scalar_dense",
        ):
            self.assertEqual(fell_back(counts, op), 0, f"{op} fell back: {counts}")

    def test_counts_reset(self) -> None:
        NOT_NATIVE_2[0](torch.ones(2, device=DEVICE))
        self.assertTrue(mod.fallback_counts())
        mod.reset_fallback_counts()
        self.assertEqual(mod.fallback_counts(), {})

    def test_policy_error_raises_for_unimplemented_op(self) -> None:
        x = torch.ones(3, device=DEVICE)
        mod.set_fallback_policy("error")
        self.assertEqual(mod.get_fallback_policy(), "error")
        op, name = NOT_NATIVE_2
        with self.assertRaisesRegex(NotImplementedError, name):
            op(x)
        # Native operators are unaffected.
        self.assertEqual((x + x).sum().item(), 6.0)

    def test_structured_op_without_kernel_falls_back_whole(self) -> None:
        # lu_unpack's structured kernel has no kernel of the backend's. The fallback takes
        # the functional operator itself, not stock's device-generic "default backend"
        # kernel (outputs made on the device, then the out= variant), which skips the
        # device check: a CPU operand tripped an internal assert.
        lu, pivots = torch.linalg.lu_factor(torch.randn(3, 3) + 3 * torch.eye(3))
        unpacked = torch.lu_unpack(lu.to(DEVICE), pivots.to(DEVICE))
        for actual, expected in zip(unpacked, torch.lu_unpack(lu, pivots), strict=True):
            self.assertEqual(actual.device.type, DEVICE)
            torch.testing.assert_close(actual.cpu(), expected)
        counts = mod.fallback_counts()
        self.assertEqual(counts.get("aten::lu_unpack"), 1, counts)
        self.assertNotIn("aten::lu_unpack.out", counts)
        with self.assertRaisesRegex(RuntimeError, "Expected all tensors to be on the same device"):
            torch.lu_unpack(lu.to(DEVICE), pivots)
        with self.assertRaisesRegex(RuntimeError, "Expected all tensors to be on the same device"):
            torch.lerp(lu.to(DEVICE), lu, 0.5)

    def test_conj_physical_in_place_runs_on_cpu(self) -> None:
        # Its default kernel calls a DispatchStub only in-tree backends fill.
        z = torch.randn(4, dtype=torch.complex64)
        on_device = z.to(DEVICE)
        on_device.conj_physical_()
        torch.testing.assert_close(on_device.cpu(), z.conj_physical())
        self.assertEqual(fell_back(mod.fallback_counts(), "aten::conj_physical_"), 1)

    def test_policy_warn_warns_once_per_op(self) -> None:
        mod.set_fallback_policy("warn")
        x = torch.ones(3, device=DEVICE)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            op, name = NOT_NATIVE_3
            op(x)
            op(x)
        messages = [str(w.message) for w in caught if name in str(w.message)]
        self.assertEqual(len(messages), 1, messages)
        self.assertEqual(fell_back(mod.fallback_counts(), name), 2)

    def test_bad_policy(self) -> None:
        with self.assertRaisesRegex(ValueError, "allow"):
            mod.set_fallback_policy("sometimes")

    def test_policy_from_environment(self) -> None:
        env_var = getattr(getattr(mod, "_C", None), "fallback_policy_env", None)
        if env_var is None:
            self.skipTest("the backend names no fallback-policy variable")
        code = (
            f"policy = torch.{DEVICE}.get_fallback_policy()\n"
            "assert policy == 'error', policy\n"
            f"x = torch.ones(2, device='{DEVICE}')\n"
            "try:\n    torch.i0(x)\nexcept NotImplementedError:\n    print('raised')\n"
        )
        result = run_in_child(code, **{env_var: "error"})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("raised", result.stdout)


if __name__ == "__main__":
    main()
