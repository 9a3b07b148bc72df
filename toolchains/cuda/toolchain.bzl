"""The CUDA toolchain, found by toolchain resolution as rules_cuda's.

A cuda_toolchain names nvcc, the files it reads, its version, the flags of each compilation
mode and feature, and the runtimes CUDA targets link. toolchains/cuda/BUILD.bazel defines
the pinned one (@cuda's nvcc 13.5) and MODULE.bazel registers it; another one, registered
first or given with --extra_toolchains, replaces it for every CUDA target.
"""

load(":providers.bzl", "CudaToolchainInfo")

visibility("public")

CUDA_TOOLCHAIN_TYPE = "//toolchains/cuda:toolchain_type"

def _static_library(cc_info, what):
    """The one static archive a CcInfo links (the device runtime's libcudadevrt.a)."""
    archives = [
        library.static_library or library.pic_static_library
        for linker_input in cc_info.linking_context.linker_inputs.to_list()
        for library in linker_input.libraries
    ]
    if len(archives) != 1 or not archives[0]:
        fail("cuda_toolchain: %s must link exactly one static archive, found %s" % (what, archives))
    return archives[0]

def _cuda_toolchain_impl(ctx):
    device_runtime = ctx.attr.device_runtime[CcInfo]
    return [platform_common.ToolchainInfo(cuda = CudaToolchainInfo(
        nvcc = ctx.executable.nvcc,
        compiler_files = ctx.attr.compiler_files[DefaultInfo].files,
        version = ctx.attr.version,
        compilation_mode_flags = ctx.attr.compilation_mode_flags,
        feature_flags = ctx.attr.feature_flags,
        runtime = ctx.attr.runtime[CcInfo],
        device_runtime = device_runtime,
        device_runtime_library = _static_library(device_runtime, "device_runtime"),
    ))]

cuda_toolchain = rule(
    implementation = _cuda_toolchain_impl,
    attrs = {
        "nvcc": attr.label(mandatory = True, executable = True, cfg = "exec", allow_single_file = True),
        "compiler_files": attr.label(mandatory = True, cfg = "exec"),
        "version": attr.string(mandatory = True, doc = "The toolkit's version, e.g. \"13.5\"."),
        "compilation_mode_flags": attr.string_list_dict(
            doc = "nvcc flags per --compilation_mode (fastbuild, dbg, opt).",
        ),
        "feature_flags": attr.string_list_dict(
            doc = "nvcc flags per feature (features = [...] on a target or --features).",
        ),
        "runtime": attr.label(mandatory = True, providers = [CcInfo]),
        "device_runtime": attr.label(
            mandatory = True,
            providers = [CcInfo],
            doc = "The device runtime (a cc_library of libcudadevrt.a), for relocatable device code.",
        ),
    },
    doc = "A CUDA compiler for toolchain resolution (toolchain_type //toolchains/cuda:toolchain_type).",
)
