// CudaRuntime's virtual memory calls, over the driver API that stock's expandable
// segments use (cuMemAddressReserve, cuMemCreate, cuMemMap, cuMemSetAccess, cuMemUnmap).
// The entry points come from cudart's cudaGetDriverEntryPointByVersion, so nothing links
// libcuda; a driver without them, or a device without virtual memory management, gives
// vm_granularity() 0 and the allocator then warns and keeps whole segments.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_checks.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_runtime.h"

namespace torch_cuda {
namespace {

using device_checks::check_device;
using device_checks::DeviceGuard;

struct DriverVm {
  PFN_cuGetErrorString_v6000 error_string = nullptr;
  PFN_cuDeviceGetAttribute_v2000 attribute = nullptr;
  PFN_cuMemGetAllocationGranularity_v10020 granularity = nullptr;
  PFN_cuMemAddressReserve_v10020 reserve = nullptr;
  PFN_cuMemAddressFree_v10020 address_free = nullptr;
  PFN_cuMemCreate_v10020 create = nullptr;
  PFN_cuMemRelease_v10020 release = nullptr;
  PFN_cuMemMap_v10020 map = nullptr;
  PFN_cuMemSetAccess_v10020 set_access = nullptr;
  PFN_cuMemUnmap_v10020 unmap = nullptr;
  bool complete = false;
};

template <typename Function>
bool load(const char* symbol, Function& out) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  // 12000: these signatures (the _v10020/_v6000/_v2000 typedefs) as of CUDA 12.0.
  const cudaError_t status = cudaGetDriverEntryPointByVersion(symbol, &function, 12000, cudaEnableDefault, &found);
  if (status != cudaSuccess || found != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    return false;
  }
  out = reinterpret_cast<Function>(function);
  return true;
}

const DriverVm& driver_vm() {
  static const DriverVm vm = [] {
    DriverVm loaded;
    loaded.complete = load("cuGetErrorString", loaded.error_string) && load("cuDeviceGetAttribute", loaded.attribute) &&
                      load("cuMemGetAllocationGranularity", loaded.granularity) &&
                      load("cuMemAddressReserve", loaded.reserve) && load("cuMemAddressFree", loaded.address_free) &&
                      load("cuMemCreate", loaded.create) && load("cuMemRelease", loaded.release) &&
                      load("cuMemMap", loaded.map) && load("cuMemSetAccess", loaded.set_access) &&
                      load("cuMemUnmap", loaded.unmap);
    return loaded;
  }();
  return vm;
}

void check_driver(CUresult result, const char* call, const char* in) {
  if (result == CUDA_SUCCESS) return;
  const char* text = nullptr;
  if (driver_vm().error_string(result, &text) != CUDA_SUCCESS || text == nullptr) text = "unknown error";
  throw std::runtime_error(std::string("CUDA driver error: ") + text + " (CUresult " + std::to_string(result) +
                           ") from " + call + " in " + in);
}

const DriverVm& checked_vm(int device, const char* call) {
  check_device(device, call);
  const DriverVm& vm = driver_vm();
  if (!vm.complete) {
    throw std::runtime_error(std::string(call) + ": the CUDA driver has no virtual memory management entry points; "
                             "check vm_granularity() first");
  }
  return vm;
}

CUmemAllocationProp device_memory(int device) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  return prop;
}

CUdeviceptr as_address(void* ptr) { return reinterpret_cast<CUdeviceptr>(ptr); }

}  // namespace

std::size_t CudaRuntime::vm_granularity(int device) {
  check_device(device, "vm_granularity");
  const DriverVm& vm = driver_vm();
  if (!vm.complete) return 0;
  DeviceGuard guard(device);
  int supported = 0;
  check_driver(vm.attribute(&supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device),
               "cuDeviceGetAttribute", "vm_granularity");
  if (supported == 0) return 0;
  const CUmemAllocationProp prop = device_memory(device);
  std::size_t granularity = 0;
  check_driver(vm.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity",
               "vm_granularity");
  return granularity;
}

void* CudaRuntime::vm_reserve(int device, std::size_t bytes) {
  const DriverVm& vm = checked_vm(device, "vm_reserve");
  DeviceGuard guard(device);
  CUdeviceptr base = 0;
  check_driver(vm.reserve(&base, bytes, 0, 0, 0), "cuMemAddressReserve", "vm_reserve");
  return reinterpret_cast<void*>(base);
}

void CudaRuntime::vm_release(int device, void* base, std::size_t bytes) {
  const DriverVm& vm = checked_vm(device, "vm_release");
  DeviceGuard guard(device);
  check_driver(vm.address_free(as_address(base), bytes), "cuMemAddressFree", "vm_release");
}

bool CudaRuntime::vm_map(int device, void* ptr, std::size_t bytes) {
  const DriverVm& vm = checked_vm(device, "vm_map");
  DeviceGuard guard(device);
  const CUmemAllocationProp prop = device_memory(device);
  CUmemGenericAllocationHandle handle = 0;
  const CUresult created = vm.create(&handle, bytes, &prop, 0);
  if (created == CUDA_ERROR_OUT_OF_MEMORY) return false;
  check_driver(created, "cuMemCreate", "vm_map");
  const CUresult mapped = vm.map(as_address(ptr), bytes, 0, handle, 0);
  // The mapping keeps the memory alive; it is freed when the range is unmapped.
  vm.release(handle);
  check_driver(mapped, "cuMemMap", "vm_map");
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  const CUresult allowed = vm.set_access(as_address(ptr), bytes, &access, 1);
  if (allowed != CUDA_SUCCESS) vm.unmap(as_address(ptr), bytes);
  check_driver(allowed, "cuMemSetAccess", "vm_map");
  return true;
}

void CudaRuntime::vm_unmap(int device, void* ptr, std::size_t bytes) {
  const DriverVm& vm = checked_vm(device, "vm_unmap");
  DeviceGuard guard(device);
  // cuMemUnmap does not wait for the work that still uses the range (cudaFree does).
  TORCH_CUDA_CHECK(cudaDeviceSynchronize());
  check_driver(vm.unmap(as_address(ptr), bytes), "cuMemUnmap", "vm_unmap");
}

}  // namespace torch_cuda
