"""The cuda_library rule: compile .cu with the hermetic nvcc, link like a cc_library.

BUILD files load the macro of the same name from cuda_library.bzl, which restricts every
target to CUDA-capable configurations; only it and the audit fixture proving that the
restriction is checked may load this file. nvcc comes from @cuda, the host compiler is the C++
toolchain's own (-ccbin), and the objects go through cc_common, so the result is a
CcInfo that cc_library, cc_binary and cc_test consume as usual.
"""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain", "use_cpp_toolchain")
load(":cuda_archs.bzl", "gencode_flags")
load(":reproducible.bzl", "NVCC_REPRODUCIBLE_ENV", "nvcc_reproducible_flags")

visibility(["//toolchains/cuda", "//tests/audits/fixtures"])

def _include_flags(compilation_context):
    flags = []
    for path in compilation_context.quote_includes.to_list() + compilation_context.includes.to_list():
        flags.append("-I" + path)
    for path in compilation_context.system_includes.to_list():
        flags += ["-isystem", path]
    for define in compilation_context.defines.to_list():
        flags.append("-D" + define)
    return flags

def _compile_one(ctx, cc_toolchain, src, compilation_context, arch_flags):
    obj = ctx.actions.declare_file("_objs/{}/{}.pic.o".format(ctx.label.name, src.basename.rsplit(".", 1)[0]))
    args = ctx.actions.args()
    args.add_all(["-x", "cu", "-c", src.path, "-o", obj.path])
    args.add("-ccbin", cc_toolchain.compiler_executable)
    args.add_all(["-std=c++17", "-O3", "-Xcompiler", "-fPIC"])
    args.add_all(arch_flags)

    # No paths, process ids or times in the object: see reproducible.bzl.
    args.add_all(nvcc_reproducible_flags(src, obj))
    args.add_all(_include_flags(compilation_context))
    args.add_all(["-D" + d for d in ctx.attr.defines])
    for flag in ctx.attr.host_copts:
        args.add_all(["-Xcompiler", flag])
    args.add_all(ctx.attr.copts)
    ctx.actions.run(
        executable = ctx.executable._nvcc,
        arguments = [args],
        inputs = depset(
            [src] + ctx.files.hdrs,
            transitive = [compilation_context.headers, cc_toolchain.all_files],
        ),
        tools = ctx.files._compiler_files,
        outputs = [obj],
        mnemonic = "CudaCompile",
        progress_message = "Compiling CUDA " + src.short_path,
        # nvcc looks for the host compiler's helpers (as, ld) on PATH.
        env = dict(NVCC_REPRODUCIBLE_ENV, PATH = "/usr/bin:/bin"),
    )
    return obj

def _cuda_library_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    dep_cc_infos = [dep[CcInfo] for dep in ctx.attr.deps]
    compilation_context, _ = cc_common.compile(
        name = ctx.label.name,
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        public_hdrs = ctx.files.hdrs,
        includes = ctx.attr.includes,
        defines = ctx.attr.defines,
        compilation_contexts = [info.compilation_context for info in dep_cc_infos],
    )
    arch_flags = gencode_flags(ctx.attr._archs[BuildSettingInfo].value)
    objects = [
        _compile_one(ctx, cc_toolchain, src, compilation_context, arch_flags)
        for src in ctx.files.srcs
        if src.extension == "cu"
    ]
    linking_context, linking_outputs = cc_common.create_linking_context_from_compilation_outputs(
        name = ctx.label.name,
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        compilation_outputs = cc_common.create_compilation_outputs(
            objects = depset(objects),
            pic_objects = depset(objects),
        ),
        linking_contexts = [info.linking_context for info in dep_cc_infos],
        user_link_flags = ctx.attr.linkopts,
        alwayslink = ctx.attr.alwayslink,
        disallow_dynamic_library = True,
    )
    library = linking_outputs.library_to_link
    files = [f for f in [library.pic_static_library, library.static_library] if f] if library else []
    return [
        DefaultInfo(files = depset(files)),
        CcInfo(compilation_context = compilation_context, linking_context = linking_context),
    ]

cuda_library = rule(
    implementation = _cuda_library_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu", ".cuh", ".h", ".hpp"]),
        "hdrs": attr.label_list(allow_files = [".cuh", ".h", ".hpp"]),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(doc = "Options for nvcc itself."),
        "host_copts": attr.string_list(doc = "Options for the host compiler (-Xcompiler)."),
        "defines": attr.string_list(),
        "includes": attr.string_list(),
        "linkopts": attr.string_list(),
        "alwayslink": attr.bool(default = False),
        "_archs": attr.label(default = "//toolchains/cuda:archs"),
        "_nvcc": attr.label(default = "@cuda//:nvcc", executable = True, cfg = "exec", allow_single_file = True),
        "_compiler_files": attr.label(default = "@cuda//:compiler_files", cfg = "exec"),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = use_cpp_toolchain(),
    provides = [CcInfo],
    doc = "Compiles CUDA sources with the hermetic nvcc into a linkable CcInfo.",
)
