// The stable C ABI's CUDA entries that need cudart or a CUDA library (the real variant's
// _CUDAC; stable_abi_cuda.cpp has the rest): raw memory from the caching allocator, the
// current cuBLAS handle, and C10_CUDA_CHECK's message for the stable ABI's STD_CUDA_CHECK.
#include <ATen/cuda/CUDAContextLight.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/inductor/aoti_torch/utils.h>
#include <torch/csrc/stable/c/shim.h>

#include <cstring>
#include <exception>

AOTITorchError aoti_torch_cuda_caching_allocator_raw_alloc(uint64_t nbytes, void** ret_ptr) {
  AOTI_TORCH_CONVERT_EXCEPTION_TO_ERROR_CODE({ *ret_ptr = c10::cuda::CUDACachingAllocator::raw_alloc(nbytes); });
}

AOTITorchError aoti_torch_cuda_caching_allocator_raw_delete(void* ptr) {
  AOTI_TORCH_CONVERT_EXCEPTION_TO_ERROR_CODE({ c10::cuda::CUDACachingAllocator::raw_delete(ptr); });
}

AOTITorchError torch_get_current_cuda_blas_handle(void** ret_handle) {
  AOTI_TORCH_CONVERT_EXCEPTION_TO_ERROR_CODE({ *ret_handle = at::cuda::getCurrentCUDABlasHandle(); });
}

AOTITorchError torch_c10_cuda_check_msg(int32_t err, const char* filename, const char* function_name,
                                        uint32_t line_number, bool include_device_assertions, char** error_msg) {
  *error_msg = nullptr;
  try {
    c10::cuda::c10_cuda_check_implementation(err, filename, function_name, line_number, include_device_assertions);
  } catch (const std::exception& e) {
    *error_msg = strdup(e.what());
  }
  return AOTI_TORCH_SUCCESS;
}

void torch_c10_cuda_free_error_msg(char* error_msg) { std::free(error_msg); }
