#include "torch_core/csrc/aten/cpu_fallback.h"

#include <cstdlib>
#include <mutex>
#include <optional>

#include <ATen/core/op_registration/adaption.h>
#include <ATen/native/CPUFallback.h>
#include <c10/core/TensorOptions.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

#include "torch_core/csrc/aten/structured_operators.h"
#include "torch_core/csrc/device/backend.h"

namespace torch_core {

namespace {

CpuFallbackState& state(c10::DeviceType device_type) { return Backend::get(device_type).cpu_fallback_state(); }

// Stock's kernels reject tensors on different devices (the generated wrappers'
// check_and_update_common_device, or TensorIterator's check); the fallback moves every
// argument to the CPU, so it checks first what the kernel would have. A 0-dim CPU tensor
// passes, as TensorIterator lets a CPU scalar join any device.
// Calls fn(tensor, argument name) for every defined tensor among the operator's arguments,
// in tensor lists too.
template <typename F>
void for_each_tensor_argument(const c10::OperatorHandle& op, const torch::jit::Stack& stack, F fn) {
  const auto& arguments = op.schema().arguments();
  const std::size_t first = stack.size() - arguments.size();
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const c10::IValue& value = stack[first + i];
    if (value.isTensor()) {
      if (value.toTensor().defined()) fn(value.toTensor(), arguments[i].name());
    } else if (value.isTensorList()) {
      for (const at::Tensor& t : value.toTensorList()) {
        if (t.defined()) fn(t, arguments[i].name());
      }
    } else if (value.isOptionalTensorList()) {
      for (const std::optional<at::Tensor>& t : value.toOptionalTensorList()) {
        if (t.has_value() && t->defined()) fn(*t, arguments[i].name());
      }
    }
  }
}

void check_common_device(const c10::OperatorHandle& op, const torch::jit::Stack& stack, const std::string& name) {
  std::optional<c10::Device> common;
  for_each_tensor_argument(op, stack, [&](const at::Tensor& t, const std::string& argument) {
    if (!(t.dim() == 0 && t.is_cpu())) {
      c10::impl::check_and_update_common_device(common, t, name.c_str(), argument.c_str());
    }
  });
}

// The CPU key whose kernel stands in: SparseCPU when a sparse COO tensor is among the
// arguments (its kernels take the dense ones too), SparseCsrCPU for the compressed
// layouts, CPU otherwise; ATen's fallback would send sparse tensors to dense kernels.
c10::DispatchKey cpu_key_for(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  c10::DispatchKey key = c10::DispatchKey::CPU;
  for_each_tensor_argument(op, stack, [&](const at::Tensor& t, const std::string&) {
    if (t.is_sparse()) {
      key = c10::DispatchKey::SparseCPU;
    } else if (t.is_sparse_csr() && key == c10::DispatchKey::CPU) {
      key = c10::DispatchKey::SparseCsrCPU;
    }
  });
  return key;
}

// The structured operators' functional and in-place overloads whose group has no kernel
// for the key get the fallback by name, so that it, not stock's "default backend" kernel,
// runs them (structured_operators.h says why). Run once the backend's own registrations have
// loaded, so its kernels keep their place.
void register_fallback_for_structured_ops(c10::DispatchKey key, const c10::BoxedKernel& fallback) {
  // Leaked: the registrations must live as long as the process (as static ones do).
  auto* library = new torch::Library(torch::Library::IMPL, "aten", key, __FILE__, __LINE__);
  auto& dispatcher = c10::Dispatcher::singleton();
  for (const auto& [name, out] : structured_operators()) {
    std::optional<c10::OperatorHandle> op = dispatcher.findOp(name);
    std::optional<c10::OperatorHandle> out_op = dispatcher.findOp(out);
    if (!op || op->hasKernelForDispatchKey(key) || (out_op && out_op->hasKernelForDispatchKey(key))) continue;
    library->impl(c10::toString(name).c_str(), torch::CppFunction::makeFromBoxedKernel(fallback));
  }
}

}  // namespace

FallbackPolicy parse_fallback_policy(const std::string& text) {
  if (text == "allow") return FallbackPolicy::kAllow;
  if (text == "warn") return FallbackPolicy::kWarn;
  if (text == "error") return FallbackPolicy::kError;
  TORCH_CHECK_VALUE(false, "unknown CPU fallback policy '", text, "': expected 'allow', 'warn' or 'error'");
}

const char* fallback_policy_name(FallbackPolicy policy) {
  switch (policy) {
    case FallbackPolicy::kWarn:
      return "warn";
    case FallbackPolicy::kError:
      return "error";
    case FallbackPolicy::kAllow:
      break;
  }
  return "allow";
}

void set_fallback_policy(c10::DeviceType device_type, FallbackPolicy policy) {
  CpuFallbackState& s = state(device_type);
  s.policy.store(policy);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.warned.clear();  // a new "warn" warns again
}

FallbackPolicy fallback_policy(c10::DeviceType device_type) { return state(device_type).policy.load(); }

namespace detail {

void init_cpu_fallback(c10::DeviceType device_type, const std::string& env_var, const c10::BoxedKernel& fallback) {
  // The setting first: a bad value fails before anything is registered, so a retried
  // import does not register the structured operators twice.
  std::optional<FallbackPolicy> policy;
  const char* value = std::getenv(env_var.c_str());
  if (value != nullptr && *value != '\0') {
    try {
      policy = parse_fallback_policy(value);
    } catch (const c10::ValueError& e) {
      TORCH_CHECK_VALUE(false, env_var, ": ", e.msg());
    }
  }
  // The dense key and the sparse ones (sparse_registration.h): on each, a structured
  // operator's default kernel would allocate its output and call the out= variant, which
  // for a sparse input makes a sparse output where the CPU's kernel wants a dense one.
  for (const c10::Layout layout : {c10::kStrided, c10::kSparse, c10::kSparseCsr}) {
    register_fallback_for_structured_ops(c10::computeDispatchKey(std::nullopt, layout, c10::Device(device_type)),
                                         fallback);
  }
  CpuFallbackState& s = state(device_type);
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.env_var = env_var;
  }
  if (policy) set_fallback_policy(device_type, *policy);
}

}  // namespace detail

std::map<std::string, int64_t> fallback_counts(c10::DeviceType device_type) {
  CpuFallbackState& s = state(device_type);
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.counts;
}

void reset_fallback_counts(c10::DeviceType device_type) {
  CpuFallbackState& s = state(device_type);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.counts.clear();
}

namespace detail {

void run_cpu_fallback(c10::DeviceType device_type, const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  CpuFallbackState& s = state(device_type);
  const std::string name = c10::toString(op.operator_name());
  check_common_device(op, *stack, name);
  const FallbackPolicy policy = s.policy.load();
  bool warn = false;
  std::string env_var;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    ++s.counts[name];
    if (policy == FallbackPolicy::kWarn) warn = s.warned.insert(name).second;
    env_var = s.env_var;
  }
  const std::string device = c10::DeviceTypeName(device_type, /*lower_case=*/true);
  TORCH_CHECK_NOT_IMPLEMENTED(policy != FallbackPolicy::kError, "The operator '", name,
                              "' has no native kernel for the ", device,
                              " device, and its CPU fallback policy is 'error'",
                              env_var.empty() ? std::string() : " (set " + env_var + "=allow or warn)");
  if (warn) {
    TORCH_WARN("The operator '", name, "' has no native kernel for the ", device,
               " device; it runs on the CPU, with copies to and from the device.");
  }
  at::native::cpu_fallback(op, stack, /*error_on_views=*/false, cpu_key_for(op, *stack));
}

}  // namespace detail

}  // namespace torch_core
