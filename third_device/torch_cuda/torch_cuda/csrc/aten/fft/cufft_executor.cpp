// The cuFFT executor of fft_plan.h's plans (the real variant), as stock's CuFFTConfig: one
// cufftXtMakePlanMany per plan, with cuFFT's own work area allocation turned off (the
// operator hands it a block of the caching allocator), and cufftXtExec on the caller's
// stream. A handle holds its stream and work area between cufftSetStream and cufftXtExec,
// so runs of one plan are serialised.
#include <cufft.h>
#include <cufftXt.h>
#include <library_types.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan_cache.h"

namespace torch_cuda::fft {
namespace {

const char* result_name(cufftResult result) {
  switch (result) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "an unknown cufftResult";
  }
}

void check(cufftResult result, const char* call) {
  if (result == CUFFT_SUCCESS) return;
  std::ostringstream message;
  message << "cuFFT error: " << result_name(result) << " (" << static_cast<int>(result) << ") from " << call;
  if (result == CUFFT_ALLOC_FAILED) message << ": the device is out of memory for the plan";
  if (result == CUFFT_SETUP_FAILED) {
    message << ": cuFFT could not initialise; is there a CUDA device and a working driver?";
  }
  throw std::runtime_error(message.str());
}

cudaDataType_t data_type(ValueType value_type, bool is_complex) {
  switch (value_type) {
    case ValueType::kHalf: return is_complex ? CUDA_C_16F : CUDA_R_16F;
    case ValueType::kFloat: return is_complex ? CUDA_C_32F : CUDA_R_32F;
    case ValueType::kDouble: return is_complex ? CUDA_C_64F : CUDA_R_64F;
  }
  throw std::invalid_argument("cuFFT: unknown value type");
}

class CufftPlan final : public Executable {
 public:
  explicit CufftPlan(const FftPlan& plan) {
    check(cufftCreate(&handle_), "cufftCreate");
    try {
      check(cufftSetAutoAllocation(handle_, 0), "cufftSetAutoAllocation");
      long long n[kMaxRank], in_embed[kMaxRank], out_embed[kMaxRank];
      for (int i = 0; i < plan.rank; ++i) {
        n[i] = plan.n[i];
        in_embed[i] = plan.in.embed[i];
        out_embed[i] = plan.out.embed[i];
      }
      // Both sides contiguous: null embeds, and cuFFT ignores the strides and distances.
      const bool simple = plan.in.simple && plan.out.simple;
      std::size_t workspace = 0;
      check(cufftXtMakePlanMany(handle_, plan.rank, n, simple ? nullptr : in_embed, plan.in.stride, plan.in.dist,
                                data_type(plan.value_type, complex_input(plan.transform)),
                                simple ? nullptr : out_embed, plan.out.stride, plan.out.dist,
                                data_type(plan.value_type, complex_output(plan.transform)), plan.batch,
                                &workspace, data_type(plan.value_type, true)),
            "cufftXtMakePlanMany");
      workspace_size_ = static_cast<std::int64_t>(workspace);
    } catch (...) {
      cufftDestroy(handle_);
      throw;
    }
  }
  ~CufftPlan() override { cufftDestroy(handle_); }
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;

  std::int64_t workspace_size() const override { return workspace_size_; }

  void run(const void* in, void* out, void* workspace, bool forward, torch_core::StreamHandle stream) const override {
    const std::lock_guard<std::mutex> lock(mutex_);
    check(cufftSetStream(handle_, static_cast<cudaStream_t>(stream)), "cufftSetStream");
    check(cufftSetWorkArea(handle_, workspace), "cufftSetWorkArea");
    // cuFFT takes a non-const input: C2R transforms use it as scratch.
    check(cufftXtExec(handle_, const_cast<void*>(in), out, forward ? CUFFT_FORWARD : CUFFT_INVERSE), "cufftXtExec");
  }

 private:
  cufftHandle handle_ = 0;
  std::int64_t workspace_size_ = 0;
  mutable std::mutex mutex_;
};

}  // namespace

std::unique_ptr<Executable> make_executable(const FftPlan& plan) { return std::make_unique<CufftPlan>(plan); }

}  // namespace torch_cuda::fft
