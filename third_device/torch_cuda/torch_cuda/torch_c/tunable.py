"""torch._C's TunableOp names (stock: torch/csrc/cuda/Module.cpp's _cuda_tunableop_*), which
torch.cuda.tunable calls, over _CUDAC's context (csrc/aten/blas/tuning_context.h)."""

from __future__ import annotations

import atexit
from types import ModuleType

# torch._C name -> the _CUDAC function it is (same arguments, same result).
_SAME = {
    "_cuda_tunableop_enable": "_tunableop_enable",
    "_cuda_tunableop_is_enabled": "_tunableop_is_enabled",
    "_cuda_tunableop_tuning_enable": "_tunableop_tuning_enable",
    "_cuda_tunableop_tuning_is_enabled": "_tunableop_tuning_is_enabled",
    "_cuda_record_untuned_enable": "_tunableop_record_untuned_enable",
    "_cuda_record_untuned_is_enabled": "_tunableop_record_untuned_is_enabled",
    "_cuda_tunableop_set_max_tuning_duration": "_tunableop_set_max_tuning_duration",
    "_cuda_tunableop_get_max_tuning_duration": "_tunableop_get_max_tuning_duration",
    "_cuda_tunableop_set_max_tuning_iterations": "_tunableop_set_max_tuning_iterations",
    "_cuda_tunableop_get_max_tuning_iterations": "_tunableop_get_max_tuning_iterations",
    "_cuda_tunableop_set_filename": "_tunableop_set_filename",
    "_cuda_tunableop_get_filename": "_tunableop_get_filename",
    "_cuda_tunableop_read_file": "_tunableop_read_file",
    "_cuda_tunableop_set_rotating_buffer_size": "_tunableop_set_rotating_buffer_size",
    "_cuda_tunableop_get_rotating_buffer_size": "_tunableop_get_rotating_buffer_size",
    "_cuda_tunableop_set_numerical_check_tolerances": "_tunableop_set_numerical_check_tolerances",
}


def build(C: ModuleType) -> dict[str, object]:
    names: dict[str, object] = {name: getattr(C, function) for name, function in _SAME.items()}

    # Stock returns tuples: ((op, params, solution, time), ...) and ((name, value), ...).
    def _cuda_tunableop_get_results() -> tuple[tuple[str, str, str, float], ...]:
        return tuple(tuple(row) for row in C._tunableop_get_results())

    def _cuda_tunableop_get_validators() -> tuple[tuple[str, str], ...]:
        return tuple(tuple(pair) for pair in C._tunableop_get_validators())

    names["_cuda_tunableop_get_results"] = _cuda_tunableop_get_results
    names["_cuda_tunableop_get_validators"] = _cuda_tunableop_get_validators
    # Stock writes the results file when the process ends, if tuning found anything new.
    atexit.register(C._tunableop_write_file_if_changed)
    return names
