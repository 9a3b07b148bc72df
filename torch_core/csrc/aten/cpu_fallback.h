// The boxed CPU fallback of a torch_core device, with a policy and per-operator counters.
//
// An operator with no kernel for the device runs on the CPU (ATen's cpu_fallback: inputs
// copied to the host, the CPU kernel, results and mutated inputs copied back), so every
// operator works from day one. What fell back is counted per operator ("aten::add_.Tensor"),
// and a policy says what a fallback does besides:
//   allow  run it quietly (the default)
//   warn   run it, warning once per operator
//   error  raise NotImplementedError naming the operator (to find what a model needs)
// The policy is per device type (the Backend's CpuFallbackState), read from an environment
// variable when the backend initialises, and settable at any time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include <ATen/core/boxing/BoxedKernel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <ATen/native/CPUFallback.h>
#include <c10/core/DeviceType.h>

#include "torch_core/csrc/device/cpu_fallback_state.h"

namespace torch_core {

// "allow", "warn", "error"; throws c10::ValueError naming the choices otherwise.
FallbackPolicy parse_fallback_policy(const std::string& text);
const char* fallback_policy_name(FallbackPolicy policy);

void set_fallback_policy(c10::DeviceType device_type, FallbackPolicy policy);
FallbackPolicy fallback_policy(c10::DeviceType device_type);
// Operator name -> number of calls that fell back, since the last reset.
std::map<std::string, int64_t> fallback_counts(c10::DeviceType device_type);
void reset_fallback_counts(c10::DeviceType device_type);

namespace detail {
void run_cpu_fallback(c10::DeviceType device_type, const c10::OperatorHandle& op, torch::jit::Stack* stack);
void init_cpu_fallback(c10::DeviceType device_type, const std::string& env_var, const c10::BoxedKernel& fallback);
}  // namespace detail

// The boxed kernel registered as the device key's fallback (TORCH_LIBRARY_IMPL(_, Key, m)),
// and the one a native kernel calls for the cases it does not handle
// (at::native::call_fallback_fn<&cpu_fallback<Type>, Op>). Any device type: a function per
// type, because a boxed kernel is a plain function pointer.
template <c10::DeviceType kDeviceType>
void cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  detail::run_cpu_fallback(kDeviceType, op, stack);
}

// Sets up the backend's fallback once its own registrations have loaded (from its module
// init): registers the fallback by name for the structured operators it has no kernel for,
// on its dense and sparse keys (structured_operators.h says why), sets the policy from `env_var` when it is set and not
// empty (a bad value throws first), and remembers the variable's name for error messages.
template <c10::DeviceType kDeviceType>
void init_cpu_fallback(const std::string& env_var) {
  detail::init_cpu_fallback(kDeviceType, env_var, c10::BoxedKernel::makeFromFunction<&cpu_fallback<kDeviceType>>());
}

// Runs operator Op (an at::_ops struct) on the CPU through kDeviceType's fallback, counted
// and under the policy: what a native kernel calls for the cases it does not cover.
template <c10::DeviceType kDeviceType, class Op, class... Args>
decltype(auto) run_on_cpu(Args&&... args) {
  return at::native::call_fallback_fn<&cpu_fallback<kDeviceType>, Op>::call(std::forward<Args>(args)...);
}

}  // namespace torch_core
