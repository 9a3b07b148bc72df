"""Analysis tests of torch's precompiled header (//toolchains/torch:aten_pch): its users
compile with it, and with the flags it was compiled with, so GCC may take it."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//toolchains/cc:precompiled_header.bzl", "PrecompiledHeaderInfo")

# Flags that name a file or directory rather than say how to compile: the input, the
# output, the dependency file, include paths, the header and the language (-x).
_WITH_PATH = ["-c", "-o", "-MF", "-I", "-iquote", "-isystem", "-include", "-x"]
_PATH_PREFIXES = ["-I", "-frandom-seed="]

def _compile_settings(argv):
    """(flags, defines) of a compile's command line, the compiler first: what GCC compares
    between a precompiled header's compile and its user's. Defines apart, as a user may
    define more (GCC checks only the macros the header reads)."""
    flags = [argv[0]]
    defines = []
    skip = False
    for arg in argv[1:]:
        if skip:
            skip = False
        elif arg in _WITH_PATH:
            skip = True
        elif arg == "-MD" or arg == "-Werror=invalid-pch" or [p for p in _PATH_PREFIXES if arg.startswith(p)]:
            pass
        elif arg.startswith("-D") or arg.startswith("-U"):
            defines.append(arg)
        else:
            flags.append(arg)
    return flags, defines

def _compiles(env):
    actions = [a for a in analysistest.target_actions(env) if a.mnemonic == "CppCompile"]
    asserts.true(env, len(actions) > 0, "the target under test compiles no C++")
    return actions

def _uses_header_impl(ctx):
    env = analysistest.begin(ctx)
    pch = ctx.attr.pch[PrecompiledHeaderInfo]
    variants = [_compile_settings(argv) for argv in pch.argvs]
    for argv in pch.argvs:
        asserts.true(env, "c++-header" in argv, "the header is not compiled as C++: %s" % argv)
    for action in _compiles(env):
        argv = action.argv
        source = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-c"]
        included = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-include"]
        asserts.equals(env, [pch.header.short_path], included, "-include of %s" % source)
        asserts.true(env, "-Werror=invalid-pch" in argv, "%s: an unusable .gch would pass silently" % source)
        flags, defines = _compile_settings(argv)

        # GCC takes the first variant whose flags are the compile's and whose defines it has.
        fitting = [
            pch_argv
            for pch_argv, (pch_flags, pch_defines) in zip(pch.argvs, variants)
            if pch_flags == flags and not [d for d in pch_defines if d not in defines]
        ]
        asserts.true(env, len(fitting) > 0, "%s: no variant fits %s; the header's: %s" % (
            source,
            flags + defines,
            [v[0] + v[1] for v in variants],
        ))
    return analysistest.end(env)

uses_header_test = analysistest.make(
    _uses_header_impl,
    attrs = {"pch": attr.label(providers = [PrecompiledHeaderInfo])},
)

def _without_header_impl(ctx):
    env = analysistest.begin(ctx)
    for action in _compiles(env):
        asserts.false(env, "-include" in action.argv, "-include with precompiled_headers=false")
    return analysistest.end(env)

without_header_test = analysistest.make(
    _without_header_impl,
    config_settings = {str(Label("//toolchains/torch:precompiled_headers")): False},
)
