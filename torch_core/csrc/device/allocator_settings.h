// torch._C._accelerator_setAllocatorSettings reaching torch_core's allocators. c10 parses
// the generic keys into its own config, then calls the one device-config hook a process
// may register; torch_core registers it and hands the text to every backend's caching
// allocator, which applies the keys it gives from then on (as stock's CUDA allocator
// reads its config at each decision).
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace torch_core {

class CachingAllocator;

// One backend's share: settings that arrive before its allocator exists wait for it.
class AllocatorSettings {
 public:
  // Registers c10's hook on first use; `this` must live as long as the process.
  AllocatorSettings();
  AllocatorSettings(const AllocatorSettings&) = delete;
  AllocatorSettings& operator=(const AllocatorSettings&) = delete;

  // The allocator now exists: it takes what arrived before it, then every later change.
  void attach(CachingAllocator& allocator);
  // Applies `text`, or keeps it until attach(); throws RuntimeError for a bad setting.
  void update(const std::string& text);

  // The name errors give the settings' source.
  static constexpr const char* kSource = "torch._C._accelerator_setAllocatorSettings";

 private:
  std::mutex mutex_;
  CachingAllocator* allocator_ = nullptr;
  std::vector<std::string> pending_;
};

}  // namespace torch_core
