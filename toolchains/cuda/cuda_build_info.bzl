"""cuda_build_info: a header naming what the build was made from and for.

TORCH_CUDA_BUILD_CUDA_VERSION, TORCH_CUDA_BUILD_CUDNN_VERSION (the pinned cuDNN the simulated
variant stands in for) and TORCH_CUDA_BUILD_ARCHS come from the rule and the
//toolchains/cuda:archs setting, so the list a binary reports is the list its kernels were
compiled for; TORCH_CUDA_BUILD_TORCH_VERSION from the pinned wheel's torch/version.py (the
one place the version is written); TORCH_CUDA_BUILD_GIT_REVISION from Bazel's
stable-status.txt when stamping (`--config=stamp`, see stamp.bzl), "unstamped" otherwise.
"""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("@rules_cc//cc:defs.bzl", "cc_common")
load(":stamp.bzl", "STAMP_ATTRS", "stamping_enabled")

def _cuda_build_info_impl(ctx):
    archs = ctx.attr._archs[BuildSettingInfo].value
    header = ctx.actions.declare_file(ctx.label.name + "/cuda_build_info.h")
    args = ctx.actions.args()
    args.add("--out", header)
    args.add("--cuda-version", ctx.attr.cuda_version)
    args.add("--cudnn-version", ctx.attr.cudnn_version)
    args.add("--archs", ",".join(archs))
    args.add("--torch-version-py", ctx.file.torch_version_py)
    inputs = [ctx.file.torch_version_py]
    if stamping_enabled(ctx):
        # Only a stamped build reads the status file: it changes with every commit.
        args.add("--stable-status", ctx.info_file)
        inputs.append(ctx.info_file)
    ctx.actions.run(
        executable = ctx.executable._generator,
        arguments = [args],
        inputs = inputs,
        outputs = [header],
        mnemonic = "CudaBuildInfo",
        progress_message = "Writing build info %{output}",
    )
    return [
        DefaultInfo(files = depset([header])),
        # Included by its workspace path (toolchains/cuda/build_info/cuda_build_info.h), under
        # the output tree's root that every compile searches.
        CcInfo(compilation_context = cc_common.create_compilation_context(
            headers = depset([header]),
        )),
    ]

cuda_build_info = rule(
    implementation = _cuda_build_info_impl,
    attrs = dict(STAMP_ATTRS, **{
        "cuda_version": attr.string(mandatory = True),
        "cudnn_version": attr.string(
            mandatory = True,
            doc = "major.minor.patch of the pinned nvidia-cudnn-cu13 (toolchains/wheels/wheels.lock).",
        ),
        "torch_version_py": attr.label(
            mandatory = True,
            allow_single_file = [".py"],
            doc = "torch/version.py of the torch the extension is built against.",
        ),
        "_archs": attr.label(default = "//toolchains/cuda:archs"),
        "_generator": attr.label(
            default = "//toolchains/cuda:gen_build_info",
            executable = True,
            cfg = "exec",
        ),
    }),
    provides = [CcInfo],
)
