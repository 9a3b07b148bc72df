#include "torch_core/csrc/device/allocator_settings.h"

#include <mutex>
#include <unordered_set>

#include <c10/core/AllocatorConfig.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/runtime/allocator_config.h"
#include "torch_core/csrc/runtime/caching_allocator.h"
#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {
namespace {

std::mutex registry_mutex;
std::vector<AllocatorSettings*>& registry() {
  static std::vector<AllocatorSettings*> settings;
  return settings;
}

void on_allocator_settings(const std::string& text) {
  std::vector<AllocatorSettings*> targets;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    targets = registry();
  }
  for (AllocatorSettings* settings : targets) {
    try {
      settings->update(text);
    } catch (const RuntimeError& error) {
      TORCH_CHECK(false, error.what());
    }
  }
}

}  // namespace

AllocatorSettings::AllocatorSettings() {
  static std::once_flag hooked;
  std::call_once(hooked, [] {
    // c10 refuses keys that neither it nor the hook claims, and a key claimed twice.
    using c10::CachingAllocator::AcceleratorAllocatorConfig;
    std::unordered_set<std::string> keys;
    for (const char* key : AllocatorConfig::kKeys) {
      if (AcceleratorAllocatorConfig::getKeys().count(key) == 0) keys.insert(key);
    }
    AcceleratorAllocatorConfig::registerDeviceConfigParserHook(on_allocator_settings, keys);
  });
  std::lock_guard<std::mutex> lock(registry_mutex);
  registry().push_back(this);
}

void AllocatorSettings::attach(CachingAllocator& allocator) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const std::string& text : pending_) allocator.update_settings(text, kSource);
  pending_.clear();
  allocator_ = &allocator;
}

void AllocatorSettings::update(const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (allocator_ != nullptr) {
    allocator_->update_settings(text, kSource);
    return;
  }
  AllocatorConfig::parse_onto(AllocatorConfig(), text, kSource);  // a bad setting fails now
  pending_.push_back(text);
}

}  // namespace torch_core
