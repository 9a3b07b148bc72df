// The cuBLAS workspace size (torch.backends.cuda.cublas_workspace_size), shared by both
// variants' executors: the size the program set, else CUBLAS_WORKSPACE_CONFIG's
// (":SIZE_KiB:COUNT" pairs, e.g. ":4096:8"), else ATen's default for the device: 32 MiB on
// sm_90 and newer, 4096 KiB x 2 + 16 KiB x 8 before. And the cuBLASLt workspace size
// (torch.backends.cuda.cublaslt_workspace_size), by ATen's rules too: set, else
// CUBLASLT_WORKSPACE_SIZE (KiB), else 1 MiB; unless TORCH_CUBLASLT_UNIFIED_WORKSPACE=0 the
// Lt workspace is carved from the cuBLAS one, so it is capped at that size. No CUDA header:
// the simulated variant answers the same questions for its devices.
#pragma once

#include <cstddef>
#include <optional>

namespace torch_cuda::blas {

// CUBLAS_WORKSPACE_CONFIG's size in bytes; nullopt when `config` is null, empty or not
// of the form ":SIZE:COUNT[:SIZE:COUNT...]" (then the default applies).
std::optional<std::size_t> parse_workspace_config(const char* config);

// The default workspace size for a device of compute capability `major`.x.
std::size_t default_workspace_bytes(int major);

// Sets the size every later workspace gets (workspaces in use keep theirs until they
// are next bound); nullopt goes back to CUBLAS_WORKSPACE_CONFIG or the default.
void set_workspace_size(std::optional<std::size_t> bytes);

// The size a workspace for a device of compute capability `major`.x gets now.
std::size_t workspace_bytes(int major);

// Sets the cuBLASLt workspace size; nullopt goes back to CUBLASLT_WORKSPACE_SIZE or 1 MiB.
void set_lt_workspace_size(std::optional<std::size_t> bytes);

struct LtWorkspaceSize {
  std::size_t bytes;      // what a cuBLASLt call gets
  std::size_t requested;  // set, configured or default, before the cap
  bool capped;            // unified and above the cuBLAS workspace size
  bool bad_config;        // CUBLASLT_WORKSPACE_SIZE is set but not a number (ignored)
  bool unified;           // carved from the cuBLAS workspace (TORCH_CUBLASLT_UNIFIED_WORKSPACE)
};

// The cuBLASLt workspace size for a device of compute capability `major`.x.
LtWorkspaceSize lt_workspace_bytes(int major);

}  // namespace torch_cuda::blas
