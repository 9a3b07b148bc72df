"""py_extension: a pybind11 module, as pybind11_bazel's pybind_extension.

pybind11_bazel cannot be fetched here; this macro keeps its interface (name, srcs, deps,
copts, linkopts) and takes pybind11 from the pinned torch wheel, the copy torch's own
extensions are compiled against, so holders and type casters agree with torch's.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary")

def py_extension(name, srcs, deps = [], copts = [], linkopts = [], visibility = None, **kwargs):
    """Builds `name`.so importable as `name`, wrapped in a py_library of the same name.

    Args:
      name: the module name (the `PYBIND11_MODULE` name).
      srcs: C++ sources.
      deps: cc deps.
      copts: extra compiler options.
      linkopts: extra linker options.
      visibility: for the py_library.
      **kwargs: passed to cc_binary (tags, testonly, ...).
    """
    cc_binary(
        name = name + ".so",
        srcs = srcs,
        copts = copts + ["-fvisibility=hidden"],
        linkopts = linkopts,
        linkshared = True,
        linkstatic = True,
        deps = deps + [
            "@host_python//:python_headers",
            "@torch//:pybind11",
        ],
        visibility = visibility,
        **kwargs
    )
    native.py_library(
        name = name,
        data = [name + ".so"],
        imports = ["."],
        visibility = visibility,
        **{k: v for k, v in kwargs.items() if k in ("tags", "testonly")}
    )
