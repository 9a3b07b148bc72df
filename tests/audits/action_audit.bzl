"""action_audit: every action under the audited targets, checked for CUDA outside @cuda.

It reads what `bazel aquery` prints (each action's argv, environment and inputs), from
an aspect at analysis time: a test cannot call Bazel, and the aspect sees exactly the
actions the build would run. The report lists each offending action with its mnemonic,
owner and the path it names; check_report.py turns a non-empty report into a failure.
"""

# The hermetic repositories: CUDA paths inside them are the point.
_HERMETIC_REPOS = [
    Label("@cuda//:nvcc").workspace_name,
    Label("@cuda_cublas//:cublas").workspace_name,
    Label("@cuda_cufft//:cufft").workspace_name,
    Label("@cuda_cusolver//:cusolver").workspace_name,
    Label("@cuda_nvtx//:nvtx3").workspace_name,
]

# File names of CUDA toolkit parts, wherever they appear.
_TOOLKIT_FILES = ["nvcc", "cicc", "ptxas", "fatbinary", "nvlink", "cuda.h", "cuda_runtime.h", "cuda_runtime_api.h"]
_TOOLKIT_LIBRARY_PREFIXES = ["libcudart", "libcublas", "libcufft", "libcusolver", "libcusparse", "libnvJitLink", "libcuda.so", "libnvrtc"]

ActionAuditInfo = provider(
    doc = "Violations found in a target and everything it depends on.",
    fields = {"violations": "depset of report lines"},
)

def _tokens(text):
    for separator in ["=", ":", ",", " "]:
        text = text.replace(separator, "\n")
    return [t for t in text.split("\n") if t]

def _is_toolkit_file(basename):
    if basename in _TOOLKIT_FILES:
        return True
    return len([p for p in _TOOLKIT_LIBRARY_PREFIXES if basename.startswith(p)]) > 0

# Options whose value is glued to them: -I/usr/local/cuda/include, -L/opt/cuda/lib64.
_PATH_OPTIONS = ["-isystem", "-iquote", "-idirafter", "-I", "-L", "-B"]

def _violation(token):
    for option in _PATH_OPTIONS:
        if token.startswith(option):
            token = token[len(option):]
            break
    if token.startswith("/") and "cuda" in token.lower():
        return "absolute CUDA path"
    if _is_toolkit_file(token.rsplit("/", 1)[-1]):
        for repo in _HERMETIC_REPOS:
            if "external/%s/" % repo in token:
                return None

            # Bazel links a shared library through a symlink under _solib_<cpu>/ in a
            # directory named after the library's label, "_" escaped as "_U": a hermetic
            # repository's library (libcublas.so.13) is still that repository's.
            if "/_solib_" in token and repo.replace("_", "_U") in token:
                return None
        return "CUDA toolkit file outside @cuda"
    return None

def _action_strings(action):
    # -l:NAME is a file name the linker looks up in the -L directories, which are audited
    # themselves (the hermetic cuBLAS links as -l:libcublas.so.13).
    strings = [arg for arg in (action.argv or []) if not arg.startswith("-l:")]
    strings += action.env.values()
    strings += [f.path for f in action.inputs.to_list()]
    return strings

def _action_audit_aspect_impl(target, ctx):
    lines = []
    for action in target.actions:
        for text in _action_strings(action):
            for token in _tokens(text):
                why = _violation(token)
                if why:
                    lines.append("%s action of %s: %s: %s" % (action.mnemonic, target.label, why, token))
    transitive = []
    for attr_name in ["deps", "srcs", "data", "hdrs"]:
        for dep in getattr(ctx.rule.attr, attr_name, []) or []:
            if type(dep) == "Target" and ActionAuditInfo in dep:
                transitive.append(dep[ActionAuditInfo].violations)
    return [ActionAuditInfo(violations = depset(lines, transitive = transitive))]

action_audit_aspect = aspect(
    implementation = _action_audit_aspect_impl,
    attr_aspects = ["deps", "srcs", "data", "hdrs"],
)

def _action_audit_impl(ctx):
    violations = depset(transitive = [t[ActionAuditInfo].violations for t in ctx.attr.targets])
    report = ctx.actions.declare_file(ctx.label.name + ".txt")
    ctx.actions.write(report, "".join([line + "\n" for line in violations.to_list()]))
    return [DefaultInfo(files = depset([report]))]

action_audit = rule(
    implementation = _action_audit_impl,
    attrs = {"targets": attr.label_list(aspects = [action_audit_aspect])},
    doc = "Writes one line per action that uses a CUDA path outside @cuda.",
)
