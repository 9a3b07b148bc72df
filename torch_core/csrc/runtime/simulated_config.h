// How many simulated devices there are and how much memory each has.
#pragma once

#include <cstddef>

namespace torch_core {

struct SimulatedConfig {
  int device_count = 2;
  std::size_t memory_bytes_per_device = 1ull << 30;

  // The defaults above, overridden by TORCH_SIM_DEVICE_COUNT (a whole number of devices)
  // and TORCH_SIM_MEMORY_MB (a positive whole number of MiB per device). An unset or
  // empty variable keeps the default; a malformed one throws RuntimeError naming the
  // variable, its value and the expected form.
  static SimulatedConfig from_env();
};

}  // namespace torch_core
