"""py_wheel: a binary wheel (PEP 427), with rules_python's py_wheel interface.

rules_python 0.22.1 as Debian ships it has py_wheel's rule but not the tool it runs
(`@rules_python//tools:wheelmaker` is not in the package: "no such package"), and
rules_python cannot be fetched here. So, like py_extension for pybind11_bazel, this rule
keeps rules_python's attributes (distribution, version, python_tag, abi, platform, deps,
requires, strip_path_prefixes, summary) and runs our own packer, wheelmaker.py.

What it adds over rules_python's: the wheel is bit-identical from build to build, from any
checkout (every zip entry dated 1980-01-01 00:00:00, permissions fixed by kind, entries
in sorted order, .dist-info last; nothing read from the clock, the environment or git);
file names follow PEP 427/491 (a local version label keeps its `+`, as torch's own
`torch-2.13.0+cpu-...` does); two files for one path in the wheel are an analysis error.

`deps`: the files of these targets (their DefaultInfo files: a py_library's srcs, a
cc_binary's .so, a source file) go into the wheel at their workspace path, less the
first matching entry of `strip_path_prefixes`. Runfiles are not followed: list what the
wheel holds.
"""

WheelInfo = provider(
    doc = "A wheel built by py_wheel.",
    fields = {
        "distribution": "str: the distribution name, as in METADATA",
        "version": "str: the version, as in METADATA",
        "wheel": "File: the .whl",
    },
)

def _path_in_wheel(file, strip_path_prefixes):
    path = file.short_path
    if path.startswith("../"):
        # ../<repository>/path: a file of an external repository.
        path = path[3:].partition("/")[2]
    for prefix in strip_path_prefixes:
        if path.startswith(prefix):
            return path[len(prefix):]
    return path

def _escape(segment):
    """A file-name component of a wheel (PEP 491: runs of other characters become `_`)."""
    out = ""
    for character in segment.elems():
        if character.isalnum() or character in ".+":
            out += character
        elif not out.endswith("_"):
            out += "_"
    return out

def _py_wheel_impl(ctx):
    entries = {}
    for file in depset(transitive = [dep[DefaultInfo].files for dep in ctx.attr.deps]).to_list():
        path = _path_in_wheel(file, ctx.attr.strip_path_prefixes)
        if not path or path.startswith("/") or ".dist-info/" in path:
            fail("%s: %s would go to %r in the wheel" % (ctx.label, file.short_path, path))
        if path in entries and entries[path] != file:
            fail("%s: both %s and %s go to %s in the wheel" % (
                ctx.label,
                entries[path].short_path,
                file.short_path,
                path,
            ))
        entries[path] = file

    manifest = ctx.actions.declare_file(ctx.label.name + ".wheel_files.txt")
    ctx.actions.write(manifest, "".join([
        "%s\t%s\n" % (path, entries[path].path)
        for path in sorted(entries)
    ]))

    wheel = ctx.actions.declare_file("-".join([
        _escape(ctx.attr.distribution),
        _escape(ctx.attr.version),
        _escape(ctx.attr.python_tag),
        _escape(ctx.attr.abi),
        _escape(ctx.attr.platform),
    ]) + ".whl")

    args = ctx.actions.args()
    args.add("--out", wheel)
    args.add("--files", manifest)
    args.add("--name", ctx.attr.distribution)
    args.add("--version", ctx.attr.version)
    args.add("--python_tag", ctx.attr.python_tag)
    args.add("--abi", ctx.attr.abi)
    args.add("--platform", ctx.attr.platform)
    args.add("--summary", ctx.attr.summary)
    args.add("--python_requires", ctx.attr.python_requires)
    args.add_all(ctx.attr.requires, format_each = "--requires=%s")
    ctx.actions.run(
        executable = ctx.executable._wheelmaker,
        arguments = [args],
        inputs = depset([manifest] + [entries[path] for path in sorted(entries)]),
        outputs = [wheel],
        mnemonic = "PyWheel",
        progress_message = "Building wheel %{output}",
    )
    return [
        DefaultInfo(files = depset([wheel]), runfiles = ctx.runfiles(files = [wheel])),
        WheelInfo(distribution = ctx.attr.distribution, version = ctx.attr.version, wheel = wheel),
    ]

py_wheel = rule(
    implementation = _py_wheel_impl,
    attrs = {
        "abi": attr.string(default = "none", doc = "ABI tag: `cp311` for an extension module."),
        "deps": attr.label_list(
            allow_files = True,
            doc = "Targets whose files the wheel holds (see the module docstring).",
        ),
        "distribution": attr.string(mandatory = True, doc = "The distribution (project) name."),
        "platform": attr.string(default = "any", doc = "e.g. manylinux_2_34_x86_64."),
        "python_requires": attr.string(doc = "Requires-Python, e.g. `==3.11.*`."),
        "python_tag": attr.string(default = "py3", doc = "e.g. `cp311`."),
        "requires": attr.string_list(doc = "Requires-Dist lines (PEP 508)."),
        "strip_path_prefixes": attr.string_list(
            doc = "Workspace path prefixes removed from the files' paths in the wheel.",
        ),
        "summary": attr.string(doc = "METADATA Summary."),
        "version": attr.string(mandatory = True, doc = "The version (PEP 440)."),
        "_wheelmaker": attr.label(
            default = "//toolchains/python:wheelmaker",
            executable = True,
            cfg = "exec",
        ),
    },
    provides = [WheelInfo],
    doc = "A reproducible .whl of `deps`' files; see the module docstring.",
)
