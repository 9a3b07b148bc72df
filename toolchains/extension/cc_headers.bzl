"""What a backend's C++ extensions compile against: headers without the libraries.

An extension's shared library must not link copies of the backend's code (a second
kernel-engine registry, a second allocator): it calls the backend's already-loaded
library (torch_cuda's _CUDAC, loaded RTLD_GLOBAL at activation) and links only torch's
libraries itself. So the backend's extension API is handed to it as headers only:

  cc_headers          a cc dep with the compilation context of `deps` and no linking
  extension_includes  the same headers as one include tree (each at the path it is
                      #included by), for builds outside Bazel: setuptools and JIT builds
                      find it in the installed backend package
"""

def _cc_headers_impl(ctx):
    merged = cc_common.merge_cc_infos(cc_infos = [dep[CcInfo] for dep in ctx.attr.deps])
    return [CcInfo(compilation_context = merged.compilation_context)]

cc_headers = rule(
    implementation = _cc_headers_impl,
    doc = "The headers (and include paths, defines) of `deps` as a cc dep that links nothing.",
    attrs = {"deps": attr.label_list(providers = [CcInfo])},
    provides = [CcInfo],
)

_VIRTUAL_INCLUDES = "/_virtual_includes/"

def _include_path(header):
    """The path `header` is #included by: under its virtual include root if it has one."""
    path = header.short_path
    if _VIRTUAL_INCLUDES in path:
        return path.split(_VIRTUAL_INCLUDES, 1)[1].split("/", 1)[1]
    return path

def _extension_includes_impl(ctx):
    headers = cc_common.merge_cc_infos(
        cc_infos = [dep[CcInfo] for dep in ctx.attr.deps],
    ).compilation_context.headers.to_list()

    # A library with an include prefix lists each header twice: at its virtual include
    # path, which #include names, and as its source file, which nothing includes.
    virtual = {
        (h.owner.package, h.basename): True
        for h in headers
        if _VIRTUAL_INCLUDES in h.short_path
    }
    outputs = {}
    for header in headers:
        # This repository's headers only: torch's and CUDA's come from their own packages.
        if header.owner.workspace_name != "":
            continue
        if _VIRTUAL_INCLUDES not in header.short_path and (header.owner.package, header.basename) in virtual:
            continue
        path = _include_path(header)
        if path in outputs:
            continue
        out = ctx.actions.declare_file(ctx.attr.prefix + "/" + path)
        ctx.actions.symlink(output = out, target_file = header)
        outputs[path] = out
    for header in ctx.files.hdrs:
        path = header.short_path
        if path not in outputs:
            out = ctx.actions.declare_file(ctx.attr.prefix + "/" + path)
            ctx.actions.symlink(output = out, target_file = header)
            outputs[path] = out
    return [DefaultInfo(files = depset(outputs.values()))]

extension_includes = rule(
    implementation = _extension_includes_impl,
    doc = "This repository's headers of `deps` laid out under `prefix` by include path.",
    attrs = {
        "deps": attr.label_list(providers = [CcInfo]),
        "hdrs": attr.label_list(
            allow_files = [".h", ".cuh"],
            doc = "Further headers, by their path in this repository (a device compiler's).",
        ),
        "prefix": attr.string(mandatory = True, doc = "Directory of the tree, in this package."),
    },
)
