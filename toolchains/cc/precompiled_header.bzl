"""A GCC precompiled header, compiled with the flags of the C++ compiles that use it.

Most of a C++ compile against torch's headers is parsing them (a composite kernel at -O0:
~80% of its 7.6 s); a precompiled header parses them once per build instead of once per
source file. `cc_precompiled_header` compiles `hdr` into `<name>/<basename>.gch` beside a
copy of it, `<name>/<basename>`, with the C++ toolchain's compile command line for this
configuration (compilation mode, -fPIC, --copt/--cxxopt), the include paths and defines of
`deps`. A library then compiles with

    copts = ["-include", "<package>/<name>/<basename>"],
    additional_compiler_inputs = ["//<package>:<name>"],

`-include` finds the copy through the bin directory's include path (no source file has
that path), and GCC takes the `.gch` beside it. additional_compiler_inputs are inputs of
every compile that Bazel never prunes (unlike headers, which it prunes by the `.d` file,
where GCC lists none of the precompiled header's headers), so a new torch pin recompiles
the header and every user.

GCC checks that the header was compiled in a compatible way (the same -O level, -fPIC and
the macros it reads) and otherwise reads the header as text, which is correct, only slow:
a library whose own flags change the level (HOT_PATH_COPTS) must not use it.
The `.gch` bytes differ from one compile to the next (GCC writes its memory image), the
objects compiled with it do not; a build's actions share it through the caches like any
other output.
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain", "use_cpp_toolchain")
load("@rules_cc//cc:defs.bzl", "CcInfo", "cc_common")

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
    gch = ctx.actions.declare_file(header.basename + ".gch", sibling = header)
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
        use_pic = True,
    )
    command_line = cc_common.get_memory_inefficient_command_line(
        feature_configuration = feature_configuration,
        action_name = ACTION_NAMES.cpp_compile,
        variables = variables,
    )
    ctx.actions.run(
        executable = cc_common.get_tool_for_action(
            feature_configuration = feature_configuration,
            action_name = ACTION_NAMES.cpp_compile,
        ),
        # The language first: a .h would otherwise be compiled as C.
        arguments = ["-x", "c++-header"] + command_line,
        env = cc_common.get_environment_variables(
            feature_configuration = feature_configuration,
            action_name = ACTION_NAMES.cpp_compile,
            variables = variables,
        ),
        inputs = depset([header], transitive = [compilation_context.headers, cc_toolchain.all_files]),
        outputs = [gch],
        mnemonic = "CppPrecompileHeader",
        progress_message = "Precompiling %{label}",
    )
    return [DefaultInfo(files = depset([header, gch]))]

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
