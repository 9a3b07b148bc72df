"""Device API: count, availability, current device, context, properties, bad indices."""

import os
import time
import unittest

import torch
from backend import DEVICE, device, main, mod, requires_devices


class DeviceApi(unittest.TestCase):
    def test_available_with_devices(self) -> None:
        self.assertTrue(mod.is_available())
        self.assertGreaterEqual(mod.device_count(), 1)
        self.assertIsInstance(mod.device_count(), int)

    def test_device_name_is_registered_with_torch(self) -> None:
        t = torch.empty(2, device=DEVICE)
        self.assertEqual(t.device.type, DEVICE)
        self.assertEqual(t.device.index, mod.current_device())

    def test_set_device_changes_current_device_and_default_placement(self) -> None:
        previous = mod.current_device()
        try:
            for index in range(mod.device_count()):
                mod.set_device(index)
                self.assertEqual(mod.current_device(), index)
                self.assertEqual(torch.empty(1, device=DEVICE).device, device(index))
        finally:
            mod.set_device(previous)

    @requires_devices(2)
    def test_device_context_restores_previous_device(self) -> None:
        mod.set_device(0)
        with mod.device(1):
            self.assertEqual(mod.current_device(), 1)
            self.assertEqual(torch.zeros(3, device=DEVICE).device, device(1))
        self.assertEqual(mod.current_device(), 0)

    @requires_devices(2)
    def test_device_of_follows_the_tensor(self) -> None:
        t = torch.ones(1, device=device(1))
        with mod.device_of(t):
            self.assertEqual(mod.current_device(), 1)
        self.assertEqual(mod.current_device(), 0)

    def test_invalid_index_is_a_clear_error(self) -> None:
        count = mod.device_count()
        # Stock's type (cudaSetDevice's "invalid device ordinal", a RuntimeError) with the
        # valid range added.
        with self.assertRaisesRegex(
            torch.AcceleratorError,
            rf"error: invalid device ordinal \({DEVICE} device index {count}.*0\.\.{count - 1}",
        ) as raised:
            mod.set_device(count)
        self.assertEqual(raised.exception.error_code, 101)  # cudaErrorInvalidDevice
        with self.assertRaisesRegex(RuntimeError, f"invalid device ordinal.*device index {count}"):
            torch.empty(1, device=device(count))
        # The failed calls changed nothing.
        self.assertLess(mod.current_device(), count)

    def test_device_properties(self) -> None:
        props = mod.get_device_properties(0)
        self.assertTrue(props.name)
        self.assertGreater(props.total_memory, 0)
        self.assertEqual(mod.get_device_name(0), props.name)
        self.assertEqual(mod.get_device_capability(0), (props.major, props.minor))

    def test_synchronize_every_device(self) -> None:
        for index in range(mod.device_count()):
            mod.synchronize(index)
        mod.synchronize()

    def test_initialised_after_use(self) -> None:
        torch.empty(1, device=DEVICE)
        self.assertTrue(mod.is_initialized())

    @unittest.skipUnless(hasattr(os, "fork"), "needs os.fork")
    def test_use_after_fork_is_refused(self) -> None:
        torch.ones(1, device=DEVICE)  # initialised in the parent
        self.assertFalse(mod._is_in_bad_fork())
        pid = os.fork()
        if pid == 0:  # child: the device's threads did not survive the fork
            code = 1
            try:
                if mod._is_in_bad_fork():
                    torch.empty(1, device=DEVICE)
            except RuntimeError as error:
                code = 0 if "forked subprocess" in str(error) else 2
            finally:
                os._exit(code)
        deadline = time.monotonic() + 60
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                self.fail("the forked child hung instead of refusing the device")
            time.sleep(0.05)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0)
        # The parent's device still works.
        self.assertEqual(torch.ones(3, device=DEVICE).sum().item(), 3.0)


if __name__ == "__main__":
    main()
