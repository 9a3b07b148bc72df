"""Analysis tests of the CUDA rules' actions (toolchains/cuda): what each attribute, each
compilation mode and feature, and toolchain resolution put on nvcc's command line, on the
example package's targets."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")

def _actions(env, mnemonic):
    return [a for a in analysistest.target_actions(env) if a.mnemonic == mnemonic]

def _compile_argv(env):
    actions = _actions(env, "CudaCompile")
    if not actions:
        fail("no CudaCompile action")
    return actions[0].argv

def _contains(env, argv, flag):
    asserts.true(env, flag in argv, "expected %r in %r" % (flag, argv))

def _lacks(env, argv, flag):
    asserts.false(env, flag in argv, "did not expect %r in %r" % (flag, argv))

def _rdc_library_impl(ctx):
    env = analysistest.begin(ctx)
    argv = _compile_argv(env)
    for flag in [
        "-gencode=arch=compute_90,code=sm_90",
        "-rdc=true",
        "-Xptxas=--warn-on-spills",
        "-DEXAMPLE_DEVICE_DEFINE",
        "-DSAXPY_LOCAL_DEFINE",
        "-DSAXPY_HOST_DEFINE",
        "-DSAXPY_HOST_LOCAL_DEFINE",
    ]:
        _contains(env, argv, flag)
    _lacks(env, argv, "-gencode=arch=compute_80,code=sm_80")
    links = _actions(env, "CudaDeviceLink")
    asserts.equals(env, 1, len(links))
    linked = [f.basename for f in links[0].inputs.to_list()]
    for name in ["saxpy.rdc.pic.o", "device_math.rdc.pic.o", "libcudadevrt.a"]:
        asserts.true(env, name in linked, "device link inputs lack %s: %s" % (name, linked))
    defines = analysistest.target_under_test(env)[CcInfo].compilation_context.defines.to_list()
    asserts.true(env, "SAXPY_HOST_DEFINE" in defines, "host_defines belong in CcInfo")
    asserts.false(env, "EXAMPLE_DEVICE_DEFINE" in defines, "device defines stay out of CcInfo")
    asserts.false(env, "SAXPY_HOST_LOCAL_DEFINE" in defines, "host_local_defines stay out of CcInfo")
    return analysistest.end(env)

rdc_library_test = analysistest.make(_rdc_library_impl)

# Every compile prunes its inputs: it runs through the rules' wrapper, which writes the
# dependency file and the list of the workspace's headers it did not read, and offers only
# the workspace's own headers (not the pinned repositories') for pruning.
def _pruned_inputs_impl(ctx):
    env = analysistest.begin(ctx)
    for action in _actions(env, "CudaCompile"):
        asserts.true(env, action.argv[0].endswith("toolchains/cuda/nvcc_unused_inputs.sh"), action.argv[0])
        outputs = [f.basename for f in action.outputs.to_list()]
        for suffix in [".pic.o", ".pic.d", ".pic.unused"]:
            asserts.true(env, [o for o in outputs if o.endswith(suffix)], "no %s in %s" % (suffix, outputs))
        lists = [f for f in action.inputs.to_list() if f.basename.endswith(".headers")]
        asserts.equals(env, 1, len(lists))
        offered = [a for a in analysistest.target_actions(env) if lists[0] in a.outputs.to_list()]
        content = offered[0].content
        asserts.true(env, "tests/cuda_rules/example/device_math.cuh" in content, content)
        asserts.false(env, "external/" in content, content)
    return analysistest.end(env)

pruned_inputs_test = analysistest.make(_pruned_inputs_impl)

# A CUDA target above :saxpy through a cc_library: CcInfo hands on host_defines only.
def _dependent_impl(ctx):
    env = analysistest.begin(ctx)
    argv = _compile_argv(env)
    _contains(env, argv, "-DSAXPY_HOST_DEFINE")
    _lacks(env, argv, "-DEXAMPLE_DEVICE_DEFINE")
    _lacks(env, argv, "-DSAXPY_LOCAL_DEFINE")
    _lacks(env, argv, "-DSAXPY_HOST_LOCAL_DEFINE")
    _lacks(env, argv, "-rdc=true")
    asserts.equals(env, 0, len(_actions(env, "CudaDeviceLink")))
    return analysistest.end(env)

dependent_test = analysistest.make(_dependent_impl)

def _arch_spec_impl(ctx):
    env = analysistest.begin(ctx)
    argv = _compile_argv(env)
    _contains(env, argv, "-gencode=arch=compute_80,code=sm_80")
    _contains(env, argv, "-gencode=arch=compute_80,code=compute_80")
    asserts.equals(env, 2, len([a for a in argv if a.startswith("-gencode")]))
    return analysistest.end(env)

arch_spec_test = analysistest.make(_arch_spec_impl)

def _mode_test_impl(ctx):
    env = analysistest.begin(ctx)
    argv = _compile_argv(env)
    for flag in ctx.attr.expected:
        _contains(env, argv, flag)
    for flag in ctx.attr.unexpected:
        _lacks(env, argv, flag)
    return analysistest.end(env)

def _flags_test(config_settings):
    return analysistest.make(
        _mode_test_impl,
        attrs = {
            "expected": attr.string_list(),
            "unexpected": attr.string_list(),
        },
        config_settings = config_settings,
    )

fastbuild_test = _flags_test({"//command_line_option:compilation_mode": "fastbuild"})
dbg_test = _flags_test({"//command_line_option:compilation_mode": "dbg"})
opt_test = _flags_test({"//command_line_option:compilation_mode": "opt"})
device_debug_test = _flags_test({"//command_line_option:features": ["cuda_device_debug"]})
lineinfo_test = _flags_test({"//command_line_option:features": ["lineinfo"]})

# The global architectures. In opt: a minor revision's SASS from its major version's lowest
# PTX, an architecture-specific one (sm_90a) from its own, PTX for the newest. In fastbuild:
# every SASS but sm_90a's from the lowest's PTX, which is the one embedded.
_ARCHS = ["sm_75", "sm_86", "sm_80", "sm_90a", "sm_90", "sm_120"]
archs_setting_test = _flags_test({
    "@@//toolchains/cuda:archs": _ARCHS,
    "//command_line_option:compilation_mode": "opt",
})
archs_single_ptx_test = _flags_test({
    "@@//toolchains/cuda:archs": _ARCHS,
    "//command_line_option:compilation_mode": "fastbuild",
})

def _resolution_impl(ctx):
    env = analysistest.begin(ctx)
    for action in _actions(env, "CudaCompile"):
        # argv[0] is the rules' wrapper (nvcc_unused_inputs.sh), which runs argv[1].
        asserts.true(
            env,
            action.argv[1].endswith("tests/cuda_rules/probe_nvcc.sh"),
            "the compile should run the registered probe toolchain's nvcc, ran %s" % action.argv[1],
        )
    return analysistest.end(env)

# With the probe toolchain given first (as --extra_toolchains does), every CUDA compile
# runs its nvcc: nvcc is found by resolution, not named by the rule.
resolution_test = analysistest.make(
    _resolution_impl,
    config_settings = {"//command_line_option:extra_toolchains": ["//tests/cuda_rules:probe_toolchain"]},
)
