"""Random number state: the devices' default generators, seeding, get/set state."""

from __future__ import annotations

import torch

from torch_core.device_module.context import DeviceContext, DeviceLike


def add_random_state(ctx: DeviceContext) -> None:
    name, C = ctx.name, ctx.C
    _lazy_init = ctx.ns["_lazy_init"]
    _lazy_call = ctx.ns["_lazy_call"]
    current_device = ctx.ns["current_device"]
    device_count = ctx.ns["device_count"]

    generators: list[torch.Generator] = []

    def _generator(index: int) -> torch.Generator:
        _lazy_init()
        if not generators:
            generators.extend(C._default_generator(i) for i in range(device_count()))
        return generators[index]

    class _DefaultGenerators:
        def __getitem__(self, index: int) -> torch.Generator:
            return _generator(index)

        def __len__(self) -> int:
            return device_count()

        def __iter__(self):
            return (_generator(i) for i in range(device_count()))

    ctx.ns["default_generators"] = _DefaultGenerators()

    @ctx.export
    def manual_seed(seed: int) -> None:
        seed = int(seed)
        _lazy_call(lambda: _generator(current_device()).manual_seed(seed), seed=True)

    @ctx.export
    def manual_seed_all(seed: int) -> None:
        seed = int(seed)

        def seed_all() -> None:
            for i in range(device_count()):
                _generator(i).manual_seed(seed)

        _lazy_call(seed_all, seed_all=True)

    @ctx.export
    def seed() -> None:
        _lazy_call(lambda: _generator(current_device()).seed())

    @ctx.export
    def seed_all() -> None:
        def reseed() -> None:
            first = _generator(0).seed()
            for i in range(1, device_count()):
                _generator(i).manual_seed(first)

        _lazy_call(reseed)

    @ctx.export
    def initial_seed() -> int:
        return _generator(current_device()).initial_seed()

    @ctx.export
    def get_rng_state(device: DeviceLike = name) -> torch.Tensor:
        return _generator(ctx.index(device)).get_state()

    @ctx.export
    def get_rng_state_all() -> list[torch.Tensor]:
        return [get_rng_state(i) for i in range(device_count())]

    @ctx.export
    def set_rng_state(new_state: torch.Tensor, device: DeviceLike = name) -> None:
        state_copy = new_state.clone(memory_format=torch.contiguous_format)
        index = ctx.index(device)
        _lazy_call(lambda: _generator(index).set_state(state_copy))

    @ctx.export
    def set_rng_state_all(new_states: list[torch.Tensor]) -> None:
        for i, new_state in enumerate(new_states):
            set_rng_state(new_state, i)
