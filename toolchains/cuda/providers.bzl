"""The providers of the CUDA rules, shaped as rules_cuda's (CudaToolchainInfo, CudaInfo)."""

visibility(["//toolchains/cuda/..."])

CudaToolchainInfo = provider(
    doc = "The CUDA compiler a cuda_toolchain resolves to, and what it links by default.",
    fields = {
        "nvcc": "File: the nvcc driver (run in the exec configuration)",
        "compiler_files": "depset of File: everything an nvcc invocation reads",
        "version": "string: the toolkit's version, e.g. \"13.5\"",
        "compilation_mode_flags": "dict: nvcc flags for each --compilation_mode",
        "feature_flags": "dict: nvcc flags for each feature a target or --features turns on",
        "runtime": "CcInfo: the CUDA runtime every CUDA target links (rules_cuda's //cuda:runtime)",
        "device_runtime": "CcInfo: the device runtime (libcudadevrt) relocatable device code links",
        "device_runtime_library": "File: libcudadevrt.a, for the device link",
    },
)

CudaInfo = provider(
    doc = "What CUDA targets hand each other beyond CcInfo (rules_cuda's CudaInfo; pic only).",
    fields = {
        "defines": "depset: public defines of the CUDA compiles (`defines`), not given to C++",
        "objects": "depset of File: a cuda_objects' objects, for the cuda_library above to archive",
        "rdc_objects": "depset of File: the same, compiled as relocatable device code",
        "dlink_rdc_objects": "depset of File: relocatable device code a cuda_library device-linked, " +
                             "linked again by an rdc cuda_library that depends on it",
    },
)
