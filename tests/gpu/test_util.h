// Small helpers of the torch-free GPU tests: check counting, exception matching, device
// buffers, and building kernel loops by hand.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "torch_core/aten/kernel_loop.h"

namespace gpu_test {

inline int failures = 0;
inline int checks = 0;

inline void check(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  }
}

inline int finish() {
  std::printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
}

// The exception's message when `call` throws an E, or "" (and a failed check) otherwise.
template <typename E, typename Call>
std::string thrown(Call call, const std::string& what) {
  try {
    call();
  } catch (const E& error) {
    return error.what();
  } catch (const std::exception& error) {
    check(false, what + ": threw the wrong type: " + error.what());
    return "";
  }
  check(false, what + ": did not throw");
  return "";
}

inline bool contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

// The number of devices, or 0 with cudart's reason.
inline int device_count(std::string& reason) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    reason = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
    cudaGetLastError();
    return 0;
  }
  if (count == 0) reason = "cudaGetDeviceCount() is 0";
  return count;
}

inline void cuda_ok(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// Device memory holding a copy of a host vector.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(const std::vector<T>& host) : size_(host.size()) {
    cuda_ok(cudaMalloc(&data_, bytes() > 0 ? bytes() : 1), "cudaMalloc");
    if (bytes() > 0) cuda_ok(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return static_cast<T*>(data_); }
  char* bytes_ptr() const { return static_cast<char*>(data_); }
  std::vector<T> to_host() const {
    std::vector<T> host(size_);
    if (bytes() > 0) cuda_ok(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    return host;
  }

 private:
  std::size_t bytes() const { return size_ * sizeof(T); }
  void* data_ = nullptr;
  std::size_t size_;
};

// An operand of a hand-built loop: its base pointer and its strides in elements.
struct Operand {
  char* data;
  std::vector<std::int64_t> strides;
  std::int64_t itemsize;
};

template <int N>
torch_core::loop::StridedLoop<N> make_loop(const std::vector<std::int64_t>& sizes, const std::vector<Operand>& ops) {
  torch_core::loop::StridedLoop<N> loop;
  loop.ndim = static_cast<int>(sizes.size());
  for (int d = 0; d < loop.ndim; ++d) loop.sizes[d] = sizes[d];
  for (int op = 0; op < N; ++op) {
    loop.data[op] = ops[op].data;
    for (int d = 0; d < loop.ndim; ++d) loop.strides[op][d] = ops[op].strides[d] * ops[op].itemsize;
  }
  return loop;
}

// Rebases a loop built over host buffers onto device buffers (same layout).
template <int N>
torch_core::loop::StridedLoop<N> rebased(torch_core::loop::StridedLoop<N> loop, const std::vector<char*>& data) {
  for (int op = 0; op < N; ++op) loop.data[op] = data[op];
  return loop;
}

}  // namespace gpu_test
