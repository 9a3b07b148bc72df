// The NVIDIA library calls the simulated variant's executors stand in for ("cublasGemmEx",
// "cublasLtMatmul", ...), counted by name as the plans are queued, so tests see which call
// an operator's plan made (as a profiler shows the library's kernels on a GPU).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace torch_cuda::simulated {

void record_library_call(const char* name);

// Every call recorded so far, by name.
std::map<std::string, std::int64_t> library_calls();

}  // namespace torch_cuda::simulated
