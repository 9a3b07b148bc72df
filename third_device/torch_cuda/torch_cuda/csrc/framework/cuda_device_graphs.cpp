// CudaRuntime's graphs: stream capture into a cudaGraph_t, instantiated and launched as
// a cudaGraphExec_t (what at::cuda::CUDAGraph does over cudart).
#include <cuda_runtime_api.h>

#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_runtime.h"

namespace torch_cuda {
namespace {

cudaStream_t as_stream(torch_core::StreamHandle stream) { return static_cast<cudaStream_t>(stream); }

cudaStreamCaptureMode as_capture_mode(torch_core::CaptureMode mode) {
  switch (mode) {
    case torch_core::CaptureMode::kGlobal:
      return cudaStreamCaptureModeGlobal;
    case torch_core::CaptureMode::kThreadLocal:
      return cudaStreamCaptureModeThreadLocal;
    case torch_core::CaptureMode::kRelaxed:
      return cudaStreamCaptureModeRelaxed;
  }
  return cudaStreamCaptureModeGlobal;
}

}  // namespace

void CudaRuntime::begin_capture(torch_core::StreamHandle stream, torch_core::CaptureMode mode) {
  TORCH_CUDA_CHECK(cudaStreamBeginCapture(as_stream(stream), as_capture_mode(mode)));
}

torch_core::GraphHandle CudaRuntime::end_capture(torch_core::StreamHandle stream) {
  cudaGraph_t graph = nullptr;
  TORCH_CUDA_CHECK(cudaStreamEndCapture(as_stream(stream), &graph));
  return graph;
}

std::uint64_t CudaRuntime::capture_id(torch_core::StreamHandle stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  unsigned long long id = 0;
  TORCH_CUDA_CHECK(cudaStreamGetCaptureInfo(as_stream(stream), &status, &id));
  // An invalidated capture still holds the stream until it ends; allocations made for it
  // go to its pool as well.
  return status == cudaStreamCaptureStatusNone ? 0 : static_cast<std::uint64_t>(id);
}

torch_core::GraphExecHandle CudaRuntime::instantiate_graph(torch_core::GraphHandle graph) {
  cudaGraphExec_t exec = nullptr;
  TORCH_CUDA_CHECK(cudaGraphInstantiate(&exec, static_cast<cudaGraph_t>(graph), 0));
  return exec;
}

void CudaRuntime::launch_graph(torch_core::GraphExecHandle graph, torch_core::StreamHandle stream) {
  TORCH_CUDA_CHECK(cudaGraphLaunch(static_cast<cudaGraphExec_t>(graph), as_stream(stream)));
}

void CudaRuntime::destroy_graph(torch_core::GraphHandle graph) {
  TORCH_CUDA_CHECK(cudaGraphDestroy(static_cast<cudaGraph_t>(graph)));
}

void CudaRuntime::destroy_graph_exec(torch_core::GraphExecHandle graph) {
  TORCH_CUDA_CHECK(cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(graph)));
}

void CudaRuntime::dump_graph(torch_core::GraphHandle graph, const std::string& path) {
  TORCH_CUDA_CHECK(cudaGraphDebugDotPrint(static_cast<cudaGraph_t>(graph), path.c_str(),
                                          cudaGraphDebugDotFlagsVerbose));
}

}  // namespace torch_cuda
