"""The nvcc actions of the CUDA rules: compiling a source and device-linking relocatable
device code. The host compiler is the C++ toolchain's own (-ccbin); nvcc and its flags
come from the resolved CUDA toolchain (toolchain.bzl)."""

load(":reproducible.bzl", "NVCC_REPRODUCIBLE_ENV", "nvcc_reproducible_flags")

visibility(["//toolchains/cuda"])

CUDA_SOURCE_EXTENSIONS = [".cu", ".cc", ".cpp", ".cxx", ".c++"]
CUDA_HEADER_EXTENSIONS = [".cuh", ".h", ".hpp", ".hh", ".inl", ".inc"]

# No PATH: nvcc runs the toolchain's gcc by its path (-ccbin), which finds its own as and ld.
_NVCC_ENV = NVCC_REPRODUCIBLE_ENV

def toolchain_flags(ctx, cuda):
    """The flags the toolchain gives this configuration: its compilation mode's, then those
    of each feature the target or --features turns on (and does not turn off)."""
    flags = list(cuda.compilation_mode_flags.get(ctx.var["COMPILATION_MODE"], []))
    for feature in sorted(cuda.feature_flags):
        if feature in ctx.features and feature not in ctx.disabled_features:
            flags.extend(cuda.feature_flags[feature])
    return flags

def is_cuda_source(file):
    for extension in CUDA_SOURCE_EXTENSIONS:
        if file.basename.endswith(extension):
            return True
    return False

def _object_path(ctx, src, suffix):
    """_objs/<target>/<source's path in its package, without extension><suffix>: unique per
    source, also for equal basenames in different directories."""
    relative = src.short_path
    package = ctx.label.package
    if relative.startswith(package + "/"):
        relative = relative[len(package) + 1:]
    return "_objs/{}/{}{}".format(ctx.label.name, relative.rsplit(".", 1)[0], suffix)

def _include_flags(compilation_context):
    flags = []
    for path in compilation_context.quote_includes.to_list() + compilation_context.includes.to_list():
        flags.append("-I" + path)
    for path in compilation_context.system_includes.to_list():
        flags += ["-isystem", path]
    return flags

def _workspace_header(file):
    """The header's path if it is the workspace's own (a source or generated one), else None:
    only these are offered for pruning (nvcc_unused_inputs.sh). The pinned repositories'
    headers stay inputs of every compile, so a new pin reruns them all."""
    return None if file.owner.workspace_name else file.path

def nvcc_compile(ctx, cuda, cc_toolchain, src, compilation_context, options, rdc):
    """Compiles `src` as CUDA into a position-independent object.

    nvcc runs through ctx.executable._nvcc_unused_inputs, which writes a dependency file and
    the list of the workspace's headers the compile did not read (unused_inputs_list): a
    change to one of those does not rerun it, as Bazel's C++ compiles prune their inputs.

    Args:
      ctx: the rule's context.
      cuda: the resolved CudaToolchainInfo.
      cc_toolchain: the C++ toolchain (host compiler).
      src: the source File.
      compilation_context: headers, include paths and C++ defines it compiles against.
      options: struct(defines, arch_flags, flags, host_copts, ptxasopts, hdrs), from the rule.
      rdc: compile relocatable device code (-rdc=true).

    Returns:
      The object File.
    """
    stem = ".rdc.pic" if rdc else ".pic"
    obj = ctx.actions.declare_file(_object_path(ctx, src, stem + ".o"))
    deps_file = ctx.actions.declare_file(_object_path(ctx, src, stem + ".d"))
    unused_headers = ctx.actions.declare_file(_object_path(ctx, src, stem + ".unused"))
    prunable = ctx.actions.declare_file(_object_path(ctx, src, stem + ".headers"))
    headers = depset(options.hdrs, transitive = [compilation_context.headers])
    prunable_list = ctx.actions.args()
    prunable_list.set_param_file_format("multiline")
    prunable_list.add_all(headers, map_each = _workspace_header)
    ctx.actions.write(prunable, prunable_list)

    args = ctx.actions.args()
    args.add_all([cuda.nvcc, prunable, deps_file, unused_headers])
    args.add_all(["-x", "cu", "-c", src.path, "-o", obj.path])
    args.add("-ccbin", cc_toolchain.compiler_executable)
    args.add_all(["-std=c++17", "-Xcompiler", "-fPIC"])
    args.add_all(toolchain_flags(ctx, cuda))
    args.add_all(options.arch_flags)
    if rdc:
        args.add("-rdc=true")

    # No paths, process ids or times in the object: see reproducible.bzl.
    args.add_all(nvcc_reproducible_flags(src, obj))
    args.add_all(_include_flags(compilation_context))
    args.add_all(options.defines, format_each = "-D%s")
    for flag in options.host_copts:
        args.add_all(["-Xcompiler", flag])
    args.add_all(options.ptxasopts, format_each = "-Xptxas=%s")
    args.add_all(options.flags)
    ctx.actions.run(
        executable = ctx.executable._nvcc_unused_inputs,
        arguments = [args],
        inputs = depset([src, prunable], transitive = [headers, cc_toolchain.all_files]),
        tools = depset([cuda.nvcc], transitive = [cuda.compiler_files]),
        outputs = [obj, deps_file, unused_headers],
        unused_inputs_list = unused_headers,
        mnemonic = "CudaCompile",
        progress_message = "Compiling CUDA " + src.short_path,
        env = _NVCC_ENV,
    )
    return obj

def nvcc_device_link(ctx, cuda, cc_toolchain, rdc_objects, arch_flags, linkopts):
    """Device-links relocatable device code (nvcc -dlink) into one object the host linker
    takes beside them; libcudadevrt (the device runtime) is linked in.

    Returns:
      The object File, <target>_dlink.pic.o.
    """
    obj = ctx.actions.declare_file("_objs/{0}/{0}_dlink.pic.o".format(ctx.label.name))
    args = ctx.actions.args()
    args.add_all(["-dlink", "-o", obj.path])
    args.add("-ccbin", cc_toolchain.compiler_executable)

    # As for a compile (reproducible.bzl): intermediates beside the output, names seeded
    # with its path, so no process id lands in the object.
    args.add_all(["--objdir-as-tempdir", "-frandom-seed=" + obj.path])
    args.add_all(["-Xcompiler", "-fPIC"])
    args.add_all(arch_flags)
    args.add_all(linkopts)
    args.add_all(rdc_objects)
    args.add(cuda.device_runtime_library)
    ctx.actions.run(
        executable = cuda.nvcc,
        arguments = [args],
        inputs = depset([cuda.device_runtime_library], transitive = [rdc_objects, cc_toolchain.all_files]),
        tools = cuda.compiler_files,
        outputs = [obj],
        mnemonic = "CudaDeviceLink",
        progress_message = "Device-linking %{label}",
        env = _NVCC_ENV,
    )
    return obj
