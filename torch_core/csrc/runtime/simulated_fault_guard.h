// Reads and writes of simulated device memory that is not allocated (freed, never
// allocated, or unmapped from reserved address space) made by stream work: the error
// CUDA reports for them, "an illegal memory access was encountered", instead of a silent
// read of stale bytes. Internal to the simulated runtime.
//
// The owners of device address ranges keep what is not allocated inaccessible (PROT_NONE)
// and watch() their ranges. When a stream's work touches such a page, the fault handler
// records the access against the work item, opens the page for a moment so the item can
// finish (reading zeros), and the worker then has the owners close their free ranges
// again and fails the item with the address. A fault anywhere else, or on a thread that
// is not running stream work, goes to the handler that was installed before.
#pragma once

#include <cstddef>
#include <string>

namespace torch_core {
namespace simulated_faults {

// What owns watched ranges: closes again (and empties) every part of them that is not
// allocated, after a fault opened a page there.
class Protected {
 public:
  virtual ~Protected() = default;
  virtual void reprotect() = 0;
};

// Faults in [base, base + bytes) are illegal accesses to `owner`'s memory (until
// unwatch(base)). Installs the fault handler on first use. A range beyond the fixed
// number of slots is not watched: a fault there stays a crash.
void watch(const void* base, std::size_t bytes, Protected* owner);
void unwatch(const void* base);

// How finish() begins its message, CUDA's words for cudaErrorIllegalAddress.
inline constexpr const char* kIllegalAccess = "an illegal memory access was encountered";

// Brackets one work item on a stream worker.
class WorkScope {
 public:
  WorkScope();
  ~WorkScope();
  WorkScope(const WorkScope&) = delete;
  WorkScope& operator=(const WorkScope&) = delete;

  // "" when the item made no illegal access; else CUDA's message with the first address.
  // Has the owners close their free ranges again first.
  std::string finish();

 private:
  const void* first_address_ = nullptr;
  unsigned count_ = 0;
  friend struct FaultHandler;
};

}  // namespace simulated_faults
}  // namespace torch_core
