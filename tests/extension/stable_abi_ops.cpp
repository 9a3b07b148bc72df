// An extension built against torch's stable ABI alone (TORCH_STABLE_ONLY: no ATen or c10
// header), using its CUDA entries: a CUDA guard on a tensor's device, the current stream
// there, a pool stream made current and synchronised. Against CPU torch + torch_cuda they
// resolve in _CUDAC (//tests/extension:test_stable_abi_extension).
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/stable/c/shim.h>
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/tensor.h>

#include <cstdint>

namespace {

void check(AOTITorchError error, const char* call) {
  STD_TORCH_CHECK(error == AOTI_TORCH_SUCCESS, call, " failed");
}

// The current stream of x's device, read under a CUDA guard for that device.
int64_t current_stream(torch::stable::Tensor x) {
  CUDAGuardHandle guard = nullptr;
  check(aoti_torch_create_cuda_guard(x.get_device_index(), &guard), "aoti_torch_create_cuda_guard");
  void* stream = nullptr;
  const AOTITorchError got = aoti_torch_get_current_cuda_stream(-1, &stream);
  check(aoti_torch_delete_cuda_guard(guard), "aoti_torch_delete_cuda_guard");
  check(got, "aoti_torch_get_current_cuda_stream");
  return reinterpret_cast<int64_t>(stream);
}

// Makes a pool stream of `device` current (synchronised first) and returns it.
int64_t use_pool_stream(int64_t device) {
  void* stream = nullptr;
  check(torch_get_cuda_stream_from_pool(false, static_cast<int32_t>(device), &stream), "from_pool");
  check(torch_cuda_stream_synchronize(stream, static_cast<int32_t>(device)), "synchronize");
  check(torch_set_current_cuda_stream(stream, static_cast<int32_t>(device)), "set_current");
  return reinterpret_cast<int64_t>(stream);
}

// The current device inside a guard for `device`, and after it.
int64_t device_inside_guard(int64_t device) {
  CUDAGuardHandle guard = nullptr;
  check(aoti_torch_create_cuda_guard(static_cast<int32_t>(device), &guard), "create_cuda_guard");
  int32_t inside = -1;
  check(aoti_torch_get_current_device_index(&inside), "get_current_device_index");
  check(aoti_torch_delete_cuda_guard(guard), "delete_cuda_guard");
  return inside;
}

}  // namespace

STABLE_TORCH_LIBRARY(stable_cuda, m) {
  m.def("current_stream(Tensor x) -> int");
  m.def("use_pool_stream(int device) -> int");
  m.def("device_inside_guard(int device) -> int");
}

STABLE_TORCH_LIBRARY_IMPL(stable_cuda, CUDA, m) { m.impl("current_stream", TORCH_BOX(&current_stream)); }

STABLE_TORCH_LIBRARY_IMPL(stable_cuda, CompositeExplicitAutograd, m) {
  m.impl("use_pool_stream", TORCH_BOX(&use_pool_stream));
  m.impl("device_inside_guard", TORCH_BOX(&device_inside_guard));
}
