"""torch.save / torch.load with device tensors and map_location."""

import io
import unittest

import torch
from backend import DEVICE, device, main, mod, requires_devices


def round_trip(obj: object, **load_kwargs: str) -> object:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return torch.load(buffer, **load_kwargs)


class Serialization(unittest.TestCase):
    def test_device_tensor_loads_where_it_was(self) -> None:
        x = torch.randn(3, 4, device=DEVICE)
        y = round_trip(x)
        self.assertEqual(y.device, x.device)
        self.assertTrue(torch.equal(y.cpu(), x.cpu()))

    def test_map_location_cpu(self) -> None:
        x = torch.randn(5, device=DEVICE)
        y = round_trip(x, map_location="cpu")
        self.assertEqual(y.device, torch.device("cpu"))
        self.assertTrue(torch.equal(y, x.cpu()))

    def test_cpu_state_dict_onto_device(self) -> None:
        model = torch.nn.Linear(3, 2)
        state = round_trip(model.state_dict(), map_location=DEVICE)
        for key, value in state.items():
            self.assertEqual(value.device.type, DEVICE, key)
            self.assertTrue(torch.equal(value.cpu(), model.state_dict()[key]), key)

    @requires_devices(2)
    def test_map_location_other_device(self) -> None:
        x = torch.arange(6.0, device=device(0))
        y = round_trip({"t": x, "view": x[2:]}, map_location=f"{DEVICE}:1")
        self.assertEqual(y["t"].device, device(1))
        self.assertTrue(torch.equal(y["t"].cpu(), x.cpu()))
        self.assertTrue(torch.equal(y["view"].cpu(), x[2:].cpu()))

    def test_map_location_beyond_device_count(self) -> None:
        with self.assertRaisesRegex(RuntimeError, "device_count"):
            round_trip(torch.ones(1), map_location=f"{DEVICE}:{mod.device_count()}")


if __name__ == "__main__":
    main()
