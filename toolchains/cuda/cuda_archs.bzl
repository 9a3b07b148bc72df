"""GPU architectures: from the //toolchains/cuda:archs build setting, or a target's own
`archs` in rules_cuda's spelling, to nvcc flags."""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")

# An architecture's feature-set suffix (the "a" of sm_90a).
_SUFFIX_LETTERS = "abcdefghijklmnopqrstuvwxyz"

def _arch_number(code, prefixes, where):
    """The "90a" of "sm_90a"; fails unless `code` is one of `prefixes` + digits (+ a letter)."""
    for prefix in prefixes:
        if code.startswith(prefix):
            number = code[len(prefix):]
            digits = number.rstrip(_SUFFIX_LETTERS)
            if digits.isdigit() and len(number) - len(digits) <= 1:
                return number
    fail("%s: %r is not an architecture of the form %s (e.g. %s90)" % (
        where,
        code,
        " or ".join([p + "XY" for p in prefixes]),
        prefixes[0],
    ))

def _arch_value(number):
    return int(number.rstrip(_SUFFIX_LETTERS))

def single_ptx(ctx):
    """Whether this configuration compiles every SASS from one PTX (see gencode_flags): in
    every compilation mode but opt, which builds stock's kernels (a PTX per major version)."""
    return ctx.var["COMPILATION_MODE"] != "opt"

def _plain_numbers(archs):
    """`archs`' numbers ("80", "90a", ...) in order, and the plain ones (no "a"), lowest first."""
    numbers = [_arch_number(arch, ["sm_"], "//toolchains/cuda:archs") for arch in archs]
    return numbers, sorted([n for n in numbers if n.isdigit()], key = _arch_value)

def ptx_arch(archs, one_ptx):
    """The compute_XY whose PTX gencode_flags embeds for `archs`."""
    numbers, plain = _plain_numbers(archs)
    if one_ptx and plain:
        return "compute_" + plain[0]
    return "compute_" + sorted(numbers, key = _arch_value)[-1]

def gencode_flags(archs, one_ptx):
    """The build setting's archs: SASS for every sm_XY, plus one PTX.

    In opt (stock's kernels, what the GPU checks and benchmarks build), a minor revision's
    SASS (sm_86) is compiled from the PTX of the lowest listed architecture of its major
    version (compute_80), as in nvcc's own `-gencode arch=compute_80,code=[sm_80,sm_86]`,
    and the newest architecture's PTX is embedded: nvcc's front end (cicc) runs once per
    major version, not once per entry, while ptxas still compiles for each architecture.

    With `one_ptx` (fastbuild and dbg), every SASS is compiled from the lowest listed
    architecture's PTX, which is also the PTX embedded (nvcc's `-arch=sm_80
    -code=sm_80,...,compute_80`): cicc runs once per source. That is 0.62x of an engine
    source's compile (elementwise_binary.cu, 47.8 -> 29.8 s): a third of it was cicc, once
    per major version. The newer architectures' SASS then uses none of their own
    instructions (sm_90's VIADD becomes IADD3; same instruction count in every engine
    kernel), and it runs wherever the per-major build's would.

    Either way the SASS runs where a per-entry build's would; only its __CUDA_ARCH__ is that
    of the PTX it came from. An architecture-specific entry (sm_90a) is always compiled from
    its own PTX.

    Args:
      archs: e.g. ["sm_80", "sm_86", "sm_90"].
      one_ptx: single_ptx(ctx).

    Returns:
      nvcc -gencode flags.
    """
    if not archs:
        fail("//toolchains/cuda:archs is empty: list at least one sm_XY")
    numbers, plain = _plain_numbers(archs)
    stage1_of_major = {}
    for n in plain:
        stage1_of_major.setdefault(_arch_value(n) // 10, plain[0] if one_ptx else n)
    flags = []
    for n in numbers:
        stage1 = stage1_of_major[_arch_value(n) // 10] if n.isdigit() else n
        flags.append("-gencode=arch=compute_{},code=sm_{}".format(stage1, n))
    ptx = ptx_arch(archs, one_ptx)
    flags.append("-gencode=arch={0},code={0}".format(ptx))
    return flags

def target_gencode_flags(specs, where):
    """A target's `archs`, as rules_cuda reads them: each spec is "compute_XY:code,code" (the
    virtual architecture the codes are compiled from) or "code,code" (from the lowest of
    them); a code is sm_XY (SASS) or compute_XY (PTX). Specs may also be joined with ";".

    Args:
      specs: e.g. ["sm_90"], ["compute_80:sm_80,sm_86,compute_80"].
      where: the target, for error messages.

    Returns:
      nvcc -gencode flags, one per code.
    """
    flags = []
    for spec in ";".join(specs).split(";"):
        spec = spec.strip()
        if not spec:
            continue
        virtual, _, codes = spec.rpartition(":")
        codes = [c.strip() for c in codes.split(",")]
        numbers = [_arch_number(c, ["sm_", "compute_"], where) for c in codes]
        if virtual:
            stage1 = _arch_number(virtual, ["compute_"], where)
        else:
            stage1 = sorted(numbers, key = _arch_value)[0]
        for code in codes:
            flags.append("-gencode=arch=compute_{},code={}".format(stage1, code))
    if not flags:
        fail("%s: archs lists no architecture" % where)
    return flags

def _cuda_archs_make_variable_impl(ctx):
    archs = ctx.attr._archs[BuildSettingInfo].value
    return [platform_common.TemplateVariableInfo({
        "CUDA_ARCHS": ",".join(archs),
        "CUDA_PTX_ARCH": ptx_arch(archs, single_ptx(ctx)),
    })]

cuda_archs_make_variable = rule(
    implementation = _cuda_archs_make_variable_impl,
    attrs = {"_archs": attr.label(default = "//toolchains/cuda:archs")},
    doc = "$(CUDA_ARCHS) and $(CUDA_PTX_ARCH) for targets that list this in `toolchains`: " +
          "the configured archs, and the compute_XY whose PTX the build embeds.",
)
