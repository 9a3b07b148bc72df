// c10::DataPtr deleters are bare function pointers: nothing but the pointer reaches them,
// not the allocator it came from. torch_core makes one deleter per c10 device type (every
// type, so a backend may sit on any dispatch key: CUDA, PrivateUse1, XPU, MTIA, ...), each
// calling `kFree(device_type, ptr)`, which finds the backend's allocator by its type.
#pragma once

#include <array>
#include <cstddef>
#include <utility>

#include <c10/core/Allocator.h>
#include <c10/core/DeviceType.h>

namespace torch_core {

inline constexpr auto kDeviceTypeCount = static_cast<std::size_t>(c10::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES);

namespace deleter_table_detail {

template <void (*kFree)(c10::DeviceType, void*), std::size_t kType>
void free_for_type(void* ptr) {
  kFree(static_cast<c10::DeviceType>(kType), ptr);
}

template <void (*kFree)(c10::DeviceType, void*), std::size_t... kTypes>
constexpr std::array<c10::DeleterFnPtr, sizeof...(kTypes)> make_table(std::index_sequence<kTypes...>) {
  return {&free_for_type<kFree, kTypes>...};
}

}  // namespace deleter_table_detail

// The deleter that hands memory of `device_type` back through kFree.
template <void (*kFree)(c10::DeviceType, void*)>
c10::DeleterFnPtr deleter_for(c10::DeviceType device_type) {
  static constexpr auto table =
      deleter_table_detail::make_table<kFree>(std::make_index_sequence<kDeviceTypeCount>{});
  return table[static_cast<std::size_t>(device_type)];
}

}  // namespace torch_core
