// Small helpers of the torch-free GPU tests: check counting, exception matching, device
// buffers, values to and from half and their errors.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>


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

// A test value as T (half through float), and back.
template <typename T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

template <typename T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else {
    return static_cast<double>(v);
  }
}

// Test values as T, for a DeviceBuffer.
template <typename T>
std::vector<T> converted(const std::vector<double>& values) {
  std::vector<T> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = from_double<T>(values[i]);
  return out;
}

// The largest absolute difference between a result read back and its expected values.
template <typename T>
double worst_error(const std::vector<T>& got, const std::vector<double>& want) {
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(to_double(got[i]) - want[i]));
  return worst;
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

// A GPU test's main: host checks always; with no device, prints why and what was checked
// instead (`skipped_what`) and runs the no-device checks; otherwise the device checks on a
// fresh non-blocking stream of every device. Exits with finish()'s status.
template <typename Host, typename NoDevice, typename Device>
int run(const char* name, const char* skipped_what, Host host_checks, NoDevice no_device_checks,
        Device device_checks) {
  host_checks();
  std::string reason;
  const int count = device_count(reason);
  try {
    if (count == 0) {
      std::printf("skipped: no CUDA device (%s): %s\n", reason.c_str(), skipped_what);
      no_device_checks();
    } else {
      for (int device = 0; device < count; ++device) {
        cuda_ok(cudaSetDevice(device), "cudaSetDevice");
        cudaStream_t stream = nullptr;
        cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        device_checks(stream);
        cuda_ok(cudaStreamSynchronize(stream), "sync");
        cuda_ok(cudaStreamDestroy(stream), "cudaStreamDestroy");
        std::printf("device %d: %s checks run\n", device, name);
      }
    }
  } catch (const std::exception& error) {
    check(false, std::string("unexpected exception: ") + error.what());
  }
  return finish();
}

}  // namespace gpu_test
