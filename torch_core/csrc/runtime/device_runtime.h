// The runtime interface a backend implements for torch_core.
//
// This is the whole of what torch_core needs to know about a device: each backend
// (CUDA over cudart, the simulated host runtime, a vendor's runtime) implements it once,
// and the device-agnostic pieces (allocator, guard, streams, generator, hooks) are written
// over it. It has no torch or vendor types on purpose, so a runtime and its tests build
// without either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace torch_core {

struct DeviceProperties {
  std::string name;
  std::size_t total_memory_bytes = 0;
  int major = 0;  // compute capability, or the vendor's own version numbers
  int minor = 0;
  int multiprocessor_count = 0;
};

class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;

  // Number of usable devices; 0, never an error, when there is no device or driver.
  virtual int device_count() const = 0;
  // Why device_count() is 0 ("no CUDA driver found", ...), empty when devices exist.
  virtual std::string unavailable_reason() const = 0;
  // Throws std::out_of_range naming the valid range when `device` is not a device index.
  virtual DeviceProperties properties(int device) const = 0;
};

}  // namespace torch_core
