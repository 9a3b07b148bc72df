"""generated_registrations: a backend's registrations of stock ATen operators, generated.

The operators are those of torch_core's stub_operators.txt, whose device-generic ATen
implementation runs on the DispatchStubs that torch_core's kernel engine fills, and of
cuda_kernel_operators.txt, whose stock CUDA kernels torch_core defines over those
(//torch_core:composite_kernels), and, on the CUDA key only, of
cuda_key_only_operators.txt (stock's exported CUDA kernels that call a stub's CUDA
slot by name); the backend must register an engine for its device
type (torch_core::engine).
"""

load("@rules_cc//cc:defs.bzl", "cc_library")

def generated_registrations(name, dispatch_key, backend_operators = [], deps = [], visibility = None):
    """A cc_library (alwayslink) registering the stub operators on `dispatch_key`.

    Args:
      name: the library; its generated source is `name`.cpp.
      dispatch_key: "CUDA" or "PrivateUse1".
      backend_operators: further operator lists (files in stub_operators.txt's format) of
        device-generic operators whose stubs the backend fills itself, beyond the engine's
        (torch_cuda's cuSOLVER stubs, say).
      deps: what the registering library links beside @torch (its engine's library).
      visibility: of the library.
    """
    native_functions = "@torch//:torchgen/packaged/ATen/native/native_functions.yaml"
    tags = "@torch//:torchgen/packaged/ATen/native/tags.yaml"
    operators = "//torch_core:csrc/aten/engine/stub_operators.txt"
    cuda_kernel_operators = "//torch_core:csrc/aten/composite/cuda_kernel_operators.txt"
    cuda_key_only_operators = "//torch_core:csrc/aten/composite/cuda_key_only_operators.txt"
    native.genrule(
        name = name + "_cpp",
        srcs = [native_functions, tags, operators, cuda_kernel_operators, cuda_key_only_operators] + backend_operators,
        outs = [name + ".cpp"],
        cmd = ("$(execpath //torch_core/codegen:gen_registrations) " +
               "--native-functions $(execpath %s) --tags $(execpath %s) " +
               "--dispatch-key %s --operators $(execpath %s) " +
               "--cuda-kernel-operators $(execpath %s) " +
               "--cuda-key-only-operators $(execpath %s) --output $@") % (
            native_functions,
            tags,
            dispatch_key,
            operators,
            cuda_kernel_operators,
            cuda_key_only_operators,
        ) + "".join([" --operators $(execpath %s)" % o for o in backend_operators]),
        tools = ["//torch_core/codegen:gen_registrations"],
    )

    # alwayslink: the registrations are static initialisers that nothing references.
    cc_library(
        name = name,
        srcs = [name + ".cpp"],
        visibility = visibility,
        deps = deps + [
            "//torch_core:composite_kernels",
            "@torch//:torch_cpu",
        ],
        alwayslink = True,
    )
