"""Stamping as cc_binary and rules_go do it: a `stamp` attribute, and Bazel's --stamp.

A rule that embeds build metadata (the git revision, from tools/workspace_status.sh) adds
STAMP_ATTRS to its attributes and reads ctx.info_file only when stamping_enabled(ctx).
An unstamped action never takes the status file as an input, so unstamped builds do not
depend on the git state and stay reproducible (tests/repro/build_twice.py).

--stamp is a native flag that Starlark cannot read; the usual way round (rules_pkg,
rules_go) is a config_setting on it, turned into a value by //toolchains/cuda:stamp_setting.
"""

StampSettingInfo = provider(
    doc = "Whether this configuration was built with --stamp.",
    fields = {"stamp": "bool"},
)

def _stamp_setting_impl(ctx):
    return [StampSettingInfo(stamp = ctx.attr.stamp)]

stamp_setting = rule(
    implementation = _stamp_setting_impl,
    attrs = {"stamp": attr.bool(mandatory = True)},
    provides = [StampSettingInfo],
    doc = "Carries --stamp (selected by a config_setting) to the rules that stamp.",
)

STAMP_ATTRS = {
    "stamp": attr.int(
        default = -1,
        values = [-1, 0, 1],
        doc = "As cc_binary's: 1 always stamps, 0 never does, -1 follows --stamp.",
    ),
    "_stamp_setting": attr.label(
        default = Label("//toolchains/cuda:stamp_setting"),
        providers = [StampSettingInfo],
    ),
}

def stamping_enabled(ctx):
    """Whether `ctx` (a rule with STAMP_ATTRS) should embed ctx.info_file.

    Args:
      ctx: the rule context.

    Returns:
      True when stamping.
    """
    if ctx.attr.stamp == -1:
        return ctx.attr._stamp_setting[StampSettingInfo].stamp
    return ctx.attr.stamp == 1
