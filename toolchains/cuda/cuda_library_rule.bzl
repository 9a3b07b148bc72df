"""The cuda_library and cuda_objects rules, with rules_cuda's attributes.

BUILD files load them through defs.bzl, whose macros restrict every target to CUDA-capable
configurations; only defs.bzl and the audit fixture proving that the restriction is checked
may load this file. nvcc comes from the resolved CUDA toolchain (toolchain.bzl), the host
compiler is the C++ toolchain's own, and the objects go through cc_common, so a
cuda_library is a CcInfo that cc_library, cc_binary and cc_test consume as usual.

The attributes mean what they mean in rules_cuda:
  copts, host_copts        nvcc's options; the host compiler's (-Xcompiler)
  defines, local_defines   CUDA compiles' defines: public to dependent CUDA targets, or
                           this target's only
  host_defines, host_local_defines  the same for the C++ side: host_defines reach every
                           dependent, cc_library included (CcInfo)
  ptxasopts                ptxas's options (-Xptxas)
  linkopts, host_linkopts  the device link's options (rdc); the host link's
  archs                    this target's architectures (rules_cuda's specs), instead of
                           --//toolchains/cuda:archs
  rdc                      relocatable device code, device-linked here (nvcc -dlink) with
                           what cuda_objects and rdc cuda_library deps bring
"""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain", "use_cpp_toolchain")
load(":cuda_archs.bzl", "gencode_flags", "single_ptx", "target_gencode_flags")
load(
    ":nvcc_actions.bzl",
    "CUDA_HEADER_EXTENSIONS",
    "CUDA_SOURCE_EXTENSIONS",
    "is_cuda_source",
    "nvcc_compile",
    "nvcc_device_link",
)
load(":providers.bzl", "CudaInfo")
load(":toolchain.bzl", "CUDA_TOOLCHAIN_TYPE")

visibility(["//toolchains/cuda", "//tests/audits/fixtures"])

def _cuda_infos(deps):
    return [dep[CudaInfo] for dep in deps if CudaInfo in dep]

def _compile_all(ctx, rdc_variants):
    """Compiles every source once per entry of `rdc_variants` (False, True).

    Returns:
      struct(objects = {rdc: [File]}, compilation_context, cc_toolchain, cuda, arch_flags,
      feature_configuration, cc_infos).
    """
    cc_toolchain = find_cpp_toolchain(ctx)
    cuda = ctx.toolchains[CUDA_TOOLCHAIN_TYPE].cuda
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    cc_infos = [dep[CcInfo] for dep in ctx.attr.deps] + [cuda.runtime]
    headers = [f for f in ctx.files.srcs if not is_cuda_source(f)]
    compilation_context, _ = cc_common.compile(
        name = ctx.label.name,
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        public_hdrs = ctx.files.hdrs,
        private_hdrs = headers,
        includes = ctx.attr.includes,
        defines = ctx.attr.host_defines,
        local_defines = ctx.attr.host_local_defines,
        compilation_contexts = [info.compilation_context for info in cc_infos],
    )
    where = str(ctx.label)
    if ctx.attr.archs:
        arch_flags = target_gencode_flags(ctx.attr.archs, where)
    else:
        arch_flags = gencode_flags(ctx.attr._archs[BuildSettingInfo].value, single_ptx(ctx))
    device_defines = depset(ctx.attr.defines, transitive = [i.defines for i in _cuda_infos(ctx.attr.deps)])
    options = struct(
        defines = (compilation_context.defines.to_list() + ctx.attr.host_local_defines +
                   device_defines.to_list() + ctx.attr.local_defines),
        arch_flags = arch_flags,
        flags = ctx.attr.copts,
        host_copts = ctx.attr.host_copts,
        ptxasopts = ctx.attr.ptxasopts,
        hdrs = ctx.files.hdrs + headers,
    )
    sources = [f for f in ctx.files.srcs if is_cuda_source(f)]
    objects = {
        rdc: [nvcc_compile(ctx, cuda, cc_toolchain, src, compilation_context, options, rdc) for src in sources]
        for rdc in rdc_variants
    }
    return struct(
        objects = objects,
        compilation_context = compilation_context,
        cc_toolchain = cc_toolchain,
        cuda = cuda,
        arch_flags = arch_flags,
        feature_configuration = feature_configuration,
        cc_infos = cc_infos,
        device_defines = device_defines,
    )

def _cuda_objects_impl(ctx):
    # Both kinds are declared; only those a dependent cuda_library archives are built.
    compiled = _compile_all(ctx, [False, True])
    infos = _cuda_infos(ctx.attr.deps)
    objects = depset(compiled.objects[False], transitive = [i.objects for i in infos])
    rdc_objects = depset(compiled.objects[True], transitive = [i.rdc_objects for i in infos])
    return [
        DefaultInfo(files = depset(compiled.objects[False])),
        OutputGroupInfo(objects = objects, rdc_objects = rdc_objects),
        # Headers for the compiles above; the deps' libraries for the final link.
        cc_common.merge_cc_infos(
            direct_cc_infos = [CcInfo(compilation_context = compiled.compilation_context)],
            cc_infos = compiled.cc_infos,
        ),
        CudaInfo(
            defines = compiled.device_defines,
            objects = objects,
            rdc_objects = rdc_objects,
            dlink_rdc_objects = depset(transitive = [i.dlink_rdc_objects for i in infos]),
        ),
    ]

def _cuda_library_impl(ctx):
    rdc = ctx.attr.rdc
    compiled = _compile_all(ctx, [rdc])
    infos = _cuda_infos(ctx.attr.deps)

    # cuda_objects deps are archived here, compiled as this library's code is.
    from_objects = depset(transitive = [i.rdc_objects if rdc else i.objects for i in infos])
    archived = compiled.objects[rdc] + from_objects.to_list()
    linking_contexts = [info.linking_context for info in compiled.cc_infos]
    dlink_inputs = depset()
    if rdc:
        dlink_inputs = depset(archived, transitive = [i.dlink_rdc_objects for i in infos])
        archived.append(nvcc_device_link(
            ctx,
            compiled.cuda,
            compiled.cc_toolchain,
            dlink_inputs,
            compiled.arch_flags,
            ctx.attr.linkopts,
        ))
        linking_contexts.append(compiled.cuda.device_runtime.linking_context)
    linking_context, linking_outputs = cc_common.create_linking_context_from_compilation_outputs(
        name = ctx.label.name,
        actions = ctx.actions,
        feature_configuration = compiled.feature_configuration,
        cc_toolchain = compiled.cc_toolchain,
        compilation_outputs = cc_common.create_compilation_outputs(
            objects = depset(archived),
            pic_objects = depset(archived),
        ),
        linking_contexts = linking_contexts,
        user_link_flags = ctx.attr.host_linkopts,
        alwayslink = ctx.attr.alwayslink,
        disallow_dynamic_library = True,
    )
    library = linking_outputs.library_to_link
    files = [f for f in [library.pic_static_library, library.static_library] if f] if library else []
    return [
        DefaultInfo(files = depset(files)),
        OutputGroupInfo(objects = depset(compiled.objects[rdc])),
        CcInfo(compilation_context = compiled.compilation_context, linking_context = linking_context),
        CudaInfo(
            defines = compiled.device_defines,
            # Archived here: what is above takes the library, not the objects again.
            objects = depset(),
            rdc_objects = depset(),
            dlink_rdc_objects = dlink_inputs,
        ),
    ]

_COMMON_ATTRS = {
    "srcs": attr.label_list(allow_files = CUDA_SOURCE_EXTENSIONS + CUDA_HEADER_EXTENSIONS),
    "hdrs": attr.label_list(allow_files = CUDA_HEADER_EXTENSIONS),
    "deps": attr.label_list(providers = [[CcInfo], [CudaInfo]]),
    "includes": attr.string_list(doc = "Include directories, relative to the package, for this target and dependents."),
    "copts": attr.string_list(doc = "nvcc's options."),
    "host_copts": attr.string_list(doc = "The host compiler's options (-Xcompiler)."),
    "defines": attr.string_list(doc = "Defines of this and dependent CUDA compiles."),
    "local_defines": attr.string_list(doc = "Defines of this target's compiles only."),
    "host_defines": attr.string_list(doc = "Defines of this target and every dependent (CcInfo)."),
    "host_local_defines": attr.string_list(doc = "Host defines of this target's compiles only."),
    "ptxasopts": attr.string_list(doc = "ptxas's options (-Xptxas)."),
    "archs": attr.string_list(
        doc = "rules_cuda's arch specs (\"sm_90\", \"compute_80:sm_80,sm_86\") for this target, " +
              "instead of --//toolchains/cuda:archs.",
    ),
    "_archs": attr.label(default = "//toolchains/cuda:archs"),
    "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    "_nvcc_unused_inputs": attr.label(
        default = "//toolchains/cuda:nvcc_unused_inputs.sh",
        allow_single_file = True,
        executable = True,
        cfg = "exec",
    ),
}

cuda_objects = rule(
    implementation = _cuda_objects_impl,
    attrs = _COMMON_ATTRS,
    fragments = ["cpp"],
    toolchains = use_cpp_toolchain() + [CUDA_TOOLCHAIN_TYPE],
    provides = [CcInfo, CudaInfo],
    doc = "Compiles CUDA sources into objects (no archive) for a cuda_library to take.",
)

cuda_library = rule(
    implementation = _cuda_library_impl,
    attrs = dict(_COMMON_ATTRS, **{
        "rdc": attr.bool(default = False, doc = "Relocatable device code, device-linked here."),
        "linkopts": attr.string_list(doc = "The device link's options (with rdc)."),
        "host_linkopts": attr.string_list(doc = "The host link's options, for every dependent."),
        "alwayslink": attr.bool(default = False),
    }),
    fragments = ["cpp"],
    toolchains = use_cpp_toolchain() + [CUDA_TOOLCHAIN_TYPE],
    provides = [CcInfo, CudaInfo],
    doc = "Compiles CUDA sources with the resolved CUDA toolchain into a linkable CcInfo.",
)
