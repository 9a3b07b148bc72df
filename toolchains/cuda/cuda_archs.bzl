"""GPU architectures: from the //toolchains/cuda:archs build setting to nvcc flags."""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")

def gencode_flags(archs):
    """SASS for every listed sm_XY, plus PTX for the newest so newer GPUs can JIT it.

    Args:
      archs: e.g. ["sm_80", "sm_90"].

    Returns:
      nvcc -gencode flags.
    """
    if not archs:
        fail("//toolchains/cuda:archs is empty: list at least one sm_XY")
    numbers = []
    for arch in archs:
        if not arch.startswith("sm_") or not arch[3:].isdigit():
            fail("//toolchains/cuda:archs: %r is not of the form sm_XY (e.g. sm_90)" % arch)
        numbers.append(arch[3:])
    newest = sorted(numbers, key = int)[-1]
    flags = ["-gencode=arch=compute_{0},code=sm_{0}".format(n) for n in numbers]
    flags.append("-gencode=arch=compute_{0},code=compute_{0}".format(newest))
    return flags

def _cuda_archs_make_variable_impl(ctx):
    archs = ctx.attr._archs[BuildSettingInfo].value
    return [platform_common.TemplateVariableInfo({"CUDA_ARCHS": ",".join(archs)})]

cuda_archs_make_variable = rule(
    implementation = _cuda_archs_make_variable_impl,
    attrs = {"_archs": attr.label(default = "//toolchains/cuda:archs")},
    doc = "$(CUDA_ARCHS) for targets that list this in `toolchains`: the configured archs.",
)
