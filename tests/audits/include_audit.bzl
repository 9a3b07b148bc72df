"""include_audit: every #include must come from the target itself or a direct dep.

Bazel's layering_check needs clang's module maps; our toolchain is gcc, so this aspect
does the same check from the build graph: for each C++/CUDA target of this repository it
lists the headers its direct deps declare, the headers only reachable transitively, and
the include directories the compiler searches; check_includes.py resolves each #include
of the target's sources against them as the compiler would. An include that resolves only
to a transitive header is an undeclared dependency (it builds today by accident and breaks
when a dep drops it). A quoted include of one of this repository's headers must name it by
its full workspace path (one include style: no paths relative to the including file, no
include_prefix remapping). Includes that resolve to no header of the graph (the C++
standard library) are not checked.
"""

IncludeAuditInfo = provider(
    doc = "Undeclared-dependency reports of a target and everything it depends on.",
    fields = {
        "reports": "depset of report files",
        "exports": "depset of the headers a dependent may include by depending on the target",
    },
)

_SOURCE_EXTENSIONS = ["c", "cc", "cpp", "cu", "cuh", "h", "hpp"]

def _header_line(header):
    return "%s %s" % (header.path, header.owner)

def _exports(target, audited_deps):
    """A target's own headers; a deps-only library (torch_core:torch_cpu) re-exports its deps'."""
    context = target[CcInfo].compilation_context
    own = context.direct_headers + context.direct_public_headers + context.direct_textual_headers
    if own:
        return depset(own)
    return depset(transitive = [dep[IncludeAuditInfo].exports for dep in audited_deps])

def _include_audit_aspect_impl(target, ctx):
    audited_deps = [dep for dep in getattr(ctx.rule.attr, "deps", []) if IncludeAuditInfo in dep]
    transitive_reports = [dep[IncludeAuditInfo].reports for dep in audited_deps]
    if CcInfo not in target:
        return [IncludeAuditInfo(reports = depset(transitive = transitive_reports), exports = depset())]
    exports = _exports(target, audited_deps)
    own_sources = [
        f
        for attr in ["srcs", "hdrs"]
        for f in getattr(ctx.rule.files, attr, [])
        if f.extension in _SOURCE_EXTENSIONS and f.is_source and not f.owner.workspace_name
    ]
    if target.label.workspace_name or not own_sources:
        return [IncludeAuditInfo(reports = depset(transitive = transitive_reports), exports = exports)]

    deps = [dep for dep in getattr(ctx.rule.attr, "deps", []) if CcInfo in dep]
    own_context = target[CcInfo].compilation_context
    declared = depset(
        own_sources + own_context.direct_headers,
        transitive = [dep[IncludeAuditInfo].exports for dep in audited_deps],
    )
    reachable = depset(transitive = [dep[CcInfo].compilation_context.headers for dep in deps])
    include_dirs = depset(
        ["."],
        transitive = [own_context.quote_includes, own_context.includes, own_context.system_includes] +
                     [dep[CcInfo].compilation_context.quote_includes for dep in deps] +
                     [dep[CcInfo].compilation_context.includes for dep in deps] +
                     [dep[CcInfo].compilation_context.system_includes for dep in deps],
    )

    prefix = ctx.label.name + ".include_audit."
    declared_list = ctx.actions.declare_file(prefix + "declared")
    reachable_list = ctx.actions.declare_file(prefix + "reachable")
    dirs_list = ctx.actions.declare_file(prefix + "dirs")
    report = ctx.actions.declare_file(prefix + "txt")
    for output, content in [(declared_list, declared), (reachable_list, reachable)]:
        args = ctx.actions.args().set_param_file_format("multiline")
        args.add_all(content, map_each = _header_line)
        ctx.actions.write(output, args)
    dirs_args = ctx.actions.args().set_param_file_format("multiline")
    dirs_args.add_all(include_dirs)
    ctx.actions.write(dirs_list, dirs_args)

    args = ctx.actions.args()
    args.add("--target", str(target.label))
    args.add("--declared", declared_list)
    args.add("--reachable", reachable_list)
    args.add("--include-dirs", dirs_list)
    args.add("--report", report)
    args.add_all(own_sources)
    ctx.actions.run(
        executable = ctx.executable._checker,
        arguments = [args],
        inputs = [declared_list, reachable_list, dirs_list] + own_sources,
        outputs = [report],
        mnemonic = "IncludeAudit",
        progress_message = "Auditing the includes of %{label}",
    )
    return [IncludeAuditInfo(reports = depset([report], transitive = transitive_reports), exports = exports)]

include_audit_aspect = aspect(
    implementation = _include_audit_aspect_impl,
    attr_aspects = ["deps"],
    attrs = {
        "_checker": attr.label(
            default = "//tests/audits:check_includes",
            executable = True,
            cfg = "exec",
        ),
    },
)

def _include_audit_impl(ctx):
    reports = depset(transitive = [t[IncludeAuditInfo].reports for t in ctx.attr.targets])
    merged = ctx.actions.declare_file(ctx.label.name + ".txt")
    ctx.actions.run_shell(
        command = 'out="$1"; shift; cat "$@" > "$out"',
        arguments = [merged.path] + [f.path for f in reports.to_list()],
        inputs = reports,
        outputs = [merged],
        mnemonic = "IncludeAuditReport",
    )
    return [DefaultInfo(files = depset([merged]))]

include_audit = rule(
    implementation = _include_audit_impl,
    attrs = {"targets": attr.label_list(aspects = [include_audit_aspect])},
    doc = "Writes one line per #include satisfied only by a transitive (undeclared) dep.",
)
