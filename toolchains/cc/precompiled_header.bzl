"""A GCC precompiled header, compiled with the flags of the C++ compiles that use it.

Most of a C++ compile against torch's headers is parsing them (a composite kernel at -O0:
~80% of its 7.6 s); a precompiled header parses them once per build instead of once per
source file. `cc_precompiled_header` compiles `hdr` with the C++ toolchain's compile
command line for this configuration (compilation mode, -fPIC, --copt/--cxxopt), the
include paths and defines of `deps`, into the directory `<name>/<basename>.gch/` beside a
copy of it, `<name>/<basename>`. A library then compiles with

    copts = ["-include", "<package>/<name>/<basename>", "-Werror=invalid-pch"],
    additional_compiler_inputs = ["//<package>:<name>"],

`-include` finds the copy through the bin directory's include path (no source file has
that path), and GCC takes the first `.gch` in the directory beside it that fits the
compile. additional_compiler_inputs are inputs of every compile that Bazel never prunes
(unlike headers, which it prunes by the `.d` file, where GCC lists none of the
precompiled header's headers), so a new torch pin recompiles the header and every user.

GCC checks that the header was compiled in a compatible way (the same -O level, -fPIC,
the macros it reads) and otherwise reads the header as text, correct but slow;
-Werror=invalid-pch makes that an error naming the difference, so a library whose own
flags change the level (HOT_PATH_COPTS) cannot take the header by mistake.
The `.gch` bytes differ from one compile to the next (GCC writes its memory image), the
objects compiled with it do not; a build's actions share it through the caches like any
other output.
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain", "use_cpp_toolchain")
load("@rules_cc//cc:defs.bzl", "CcInfo", "cc_common")

PrecompiledHeaderInfo = provider(
    doc = "What a cc_precompiled_header compiled, and how.",
    fields = {
        "argvs": "list of list of str: each variant's compile command line, the compiler first",
        "header": "File: the copy of the header the .gch lies beside (what -include names)",
    },
)

def _precompile(ctx, cc_toolchain, feature_configuration, compilation_context, header, use_pic):
    """Compiles `header` into <header>.gch/<pic|nopic>.gch; returns (the File, its argv)."""
    gch = ctx.actions.declare_file(
        "{}.gch/{}.gch".format(header.basename, "pic" if use_pic else "nopic"),
        sibling = header,
    )
    variables = cc_common.create_compile_variables(
        cc_toolchain = cc_toolchain,
        feature_configuration = feature_configuration,
        source_file = header.path,
        output_file = gch.path,
        user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts,
        include_directories = compilation_context.includes,
        quote_include_directories = compilation_context.quote_includes,
        system_include_directories = compilation_context.system_includes,
        preprocessor_defines = compilation_context.defines,
        use_pic = use_pic,
    )
    compiler = cc_common.get_tool_for_action(
        feature_configuration = feature_configuration,
        action_name = ACTION_NAMES.cpp_compile,
    )

    # The language first: a .h would otherwise be compiled as C.
    arguments = ["-x", "c++-header"] + cc_common.get_memory_inefficient_command_line(
        feature_configuration = feature_configuration,
        action_name = ACTION_NAMES.cpp_compile,
        variables = variables,
    )
    ctx.actions.run(
        executable = compiler,
        arguments = arguments,
        env = cc_common.get_environment_variables(
            feature_configuration = feature_configuration,
            action_name = ACTION_NAMES.cpp_compile,
            variables = variables,
        ),
        inputs = depset([header], transitive = [compilation_context.headers, cc_toolchain.all_files]),
        outputs = [gch],
        mnemonic = "CppPrecompileHeader",
        progress_message = "Precompiling %{{label}} ({})".format(gch.basename),
    )
    return gch, [compiler] + arguments

def _cc_precompiled_header_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    compilation_context = cc_common.merge_cc_infos(
        cc_infos = [dep[CcInfo] for dep in ctx.attr.deps],
    ).compilation_context
    header = ctx.actions.declare_file("{}/{}".format(ctx.label.name, ctx.file.hdr.basename))
    ctx.actions.symlink(output = header, target_file = ctx.file.hdr)

    # Bazel compiles position-independent objects only, except under -c opt, where what
    # links into an executable is compiled without -fPIC (unless the toolchain enables
    # prefer_pic_for_opt_binaries, which @host_gcc's does not declare): GCC takes the
    # variant of the .gch directory that fits.
    pic_variants = [True, False] if ctx.var["COMPILATION_MODE"] == "opt" else [True]
    variants = [
        _precompile(ctx, cc_toolchain, feature_configuration, compilation_context, header, pic)
        for pic in pic_variants
    ]
    return [
        DefaultInfo(files = depset([header] + [gch for gch, _ in variants])),
        PrecompiledHeaderInfo(argvs = [argv for _, argv in variants], header = header),
    ]

cc_precompiled_header = rule(
    implementation = _cc_precompiled_header_impl,
    doc = "A GCC precompiled header of `hdr` for the current configuration (see the module).",
    attrs = {
        "deps": attr.label_list(
            doc = "The libraries whose headers `hdr` includes.",
            providers = [CcInfo],
        ),
        "hdr": attr.label(
            doc = "The header to precompile: the includes every user shares.",
            allow_single_file = [".h"],
            mandatory = True,
        ),
    },
    fragments = ["cpp"],
    toolchains = use_cpp_toolchain(),
)
