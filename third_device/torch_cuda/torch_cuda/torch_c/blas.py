"""torch._C's cuBLAS names (stock: torch/csrc/cuda/Module.cpp over at::cuda's handle
pool): the workspace sizes torch.backends.cuda.cublas_workspace_size and
cublaslt_workspace_size set, the current handle, and giving the workspaces back; and the
current cuSOLVER handle."""

from __future__ import annotations

from types import ModuleType

from torch_cuda.torch_c.device import current_device, device_properties
from torch_cuda.torch_c.names import Names


def build(C: ModuleType) -> Names:
    names = Names()

    @names.export
    def _cuda_getCublasWorkspaceSize() -> int:
        # The capability torch.cuda reports (a simulated device reports its newest arch).
        return int(C._cublas_workspace_size(device_properties(C, current_device(C)).major))

    @names.export
    def _cuda_setCublasWorkspaceSize(size: int) -> None:
        C._set_cublas_workspace_size(int(size))

    @names.export
    def _cuda_resetCublasWorkspaceSize() -> None:
        C._reset_cublas_workspace_size()

    @names.export
    def _cuda_getCublasLtWorkspaceSize() -> int:
        return int(C._cublaslt_workspace_size(device_properties(C, current_device(C)).major))

    @names.export
    def _cuda_setCublasLtWorkspaceSize(size: int) -> None:
        C._set_cublaslt_workspace_size(int(size))

    @names.export
    def _cuda_resetCublasLtWorkspaceSize() -> None:
        C._reset_cublaslt_workspace_size()

    @names.export
    def _cuda_getCurrentBlasHandle() -> int:
        return int(C._current_blas_handle())

    @names.export
    def _cuda_getCurrentSolverHandle() -> int:
        return int(C._current_solver_handle())

    @names.export
    def _cuda_clearCublasWorkspaces() -> None:
        C._clear_blas_workspaces()

    return names
