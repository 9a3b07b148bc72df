"""action_audit: every action under the audited targets, checked by one rule.

It reads what `bazel aquery` prints (each action's argv, environment and inputs), from
an aspect at analysis time: a test cannot call Bazel, and the aspect sees exactly the
actions the build would run. The report lists each offending action with its mnemonic,
owner and the path it names; check_report.py turns a non-empty report into a failure.
The checks (`check`):
- "cuda_outside_cuda": no CUDA path outside the pinned CUDA repositories;
- "host_paths": no path outside the execution root and Bazel's external repositories
  (no /usr/bin/gcc, /usr/include, /usr/lib/python3): the pinned toolchains are used.
"""

# The hermetic repositories: CUDA paths inside them are the point.
_HERMETIC_REPOS = [
    Label("@cuda//:nvcc").workspace_name,
    Label("@cuda_cublas//:cublas").workspace_name,
    Label("@cuda_cudnn//:cudnn").workspace_name,
    Label("@cuda_cudnn_engines//:runtime").workspace_name,
    Label("@cuda_cudnn_frontend//:cudnn_frontend").workspace_name,
    Label("@cuda_cufft//:cufft").workspace_name,
    Label("@cuda_cusolver//:cusolver").workspace_name,
    Label("@cuda_nvrtc//:nvrtc").workspace_name,
    Label("@cuda_nvtx//:nvtx3").workspace_name,
]

# Repositories whose files named like the toolkit's are not the toolkit's: torch's own
# C++ API (torch/cuda.h, reached through the codegen tool's runfiles) and the C/C++
# toolchain's sysroot (the kernel's linux/cuda.h, a PowerMac ADB controller header).
_NOT_TOOLKIT_REPOS = [
    Label("@torch//:torch_cpu").workspace_name,
    Label("@host_gcc//:cc_toolchain").workspace_name,
]

# File names of CUDA toolkit parts, wherever they appear.
_TOOLKIT_FILES = ["nvcc", "cicc", "ptxas", "fatbinary", "nvlink", "cuda.h", "cuda_runtime.h", "cuda_runtime_api.h"]
_TOOLKIT_LIBRARY_PREFIXES = ["libcudart", "libcublas", "libcudnn", "libcufft", "libcusolver", "libcusparse", "libnvJitLink", "libcuda.so", "libnvrtc"]

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

def _strip_path_option(token):
    for option in _PATH_OPTIONS:
        if token.startswith(option):
            return token[len(option):]
    return token

# The absolute paths an action may name, none of them a tool or file of the build: the
# shell Bazel starts genrules and run_shell actions with (--shell_executable, the action
# launcher), and the working directory as every process sees it (nvcc's PWD, so that
# the paths it records do not name the execution root).
_NOT_HOST_FILES = ["/bin/bash", "/proc/self/cwd"]

def _host_path_violation(token):
    token = _strip_path_option(token)
    if token.startswith("/") and token not in _NOT_HOST_FILES:
        return "path outside the execution root"
    return None

def _cuda_violation(token):
    token = _strip_path_option(token)
    if token.startswith("/") and "cuda" in token.lower():
        return "absolute CUDA path"
    if _is_toolkit_file(token.rsplit("/", 1)[-1]):
        for repo in _NOT_TOOLKIT_REPOS:
            if "external/%s/" % repo in token or token.startswith("runfiles/%s/" % repo):
                return None
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

# The search path --incompatible_strict_action_env (.bazelrc) gives every action instead of
# the caller's: it names no tool, as each is named by its path, and the build in Bazel's
# hermetic sandbox (tests/repro/build_twice.py) shows that no action looks one up there.
_STRICT_ACTION_PATH = "/bin:/usr/bin:/usr/local/bin"

def _action_strings(action):
    # -l:NAME is a file name the linker looks up in the -L directories, which are audited
    # themselves (the hermetic cuBLAS links as -l:libcublas.so.13).
    strings = [arg for arg in (action.argv or []) if not arg.startswith("-l:")]
    strings += [value for name, value in action.env.items() if not (name == "PATH" and value == _STRICT_ACTION_PATH)]
    strings += [f.path for f in action.inputs.to_list()]
    return strings

_CHECKS = {
    "cuda_outside_cuda": _cuda_violation,
    "host_paths": _host_path_violation,
}

def _action_audit_aspect_impl(target, ctx):
    violation = _CHECKS[ctx.attr.check]
    lines = []
    for action in target.actions:
        for text in _action_strings(action):
            for token in _tokens(text):
                why = violation(token)
                if why:
                    lines.append("%s action of %s: %s: %s" % (action.mnemonic, target.label, why, token))
    transitive = []
    for attr_name in _FOLLOWED_ATTRS:
        for dep in getattr(ctx.rule.attr, attr_name, []) or []:
            if type(dep) == "Target" and ActionAuditInfo in dep:
                transitive.append(dep[ActionAuditInfo].violations)
    return [ActionAuditInfo(violations = depset(lines, transitive = transitive))]

# The dependency edges followed: a target's libraries, sources, runtime data and the tools
# its genrules run.
_FOLLOWED_ATTRS = ["deps", "srcs", "data", "hdrs", "tools"]

action_audit_aspect = aspect(
    implementation = _action_audit_aspect_impl,
    attr_aspects = _FOLLOWED_ATTRS,
    attrs = {"check": attr.string(values = _CHECKS.keys())},
)

def _action_audit_impl(ctx):
    violations = depset(transitive = [t[ActionAuditInfo].violations for t in ctx.attr.targets])
    report = ctx.actions.declare_file(ctx.label.name + ".txt")
    ctx.actions.write(report, "".join([line + "\n" for line in violations.to_list()]))
    return [DefaultInfo(files = depset([report]))]

action_audit = rule(
    implementation = _action_audit_impl,
    attrs = {
        "check": attr.string(values = _CHECKS.keys(), mandatory = True),
        "targets": attr.label_list(aspects = [action_audit_aspect]),
    },
    doc = "Writes one line per action that breaks the check's rule.",
)
