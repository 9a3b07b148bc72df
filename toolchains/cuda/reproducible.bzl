"""What makes an nvcc compile bit-for-bit reproducible (checked by tests/repro/build_twice.py).

Each entry removes a difference measured with nvcc 13.5 between two builds of the same tree
from two checkouts at different paths, each with its own output base (so different sandbox
paths and process ids). The C++ compiles need nothing of the sort: Bazel's C++ toolchain
already passes -frandom-seed, redacts __DATE__/__TIME__/__TIMESTAMP__ and sets
PWD=/proc/self/cwd, and gives gcc execroot-relative paths only.
"""

def nvcc_reproducible_flags(src, obj):
    """nvcc flags that keep paths, process ids and times out of `obj`.

    Args:
      src: the .cu File being compiled.
      obj: the object File it is compiled to.

    Returns:
      A list of nvcc arguments.
    """
    if "," in src.path:
        # -Xcudafe splits its value at commas and has no escape.
        fail("cuda_library: %s: a comma in a source path is not supported" % src.path)
    return [
        # nvcc names a file's anonymous namespaces _GLOBAL__N__<crc32>_<len>_<file>_<hash>,
        # where crc32 is of the source's absolute realpath, which it hands cudafe++ as
        # --orig_src_path_name: the checkout's path changed every kernel's symbol in the
        # object, its fatbinary and _CUDAC.so. cudafe++ takes the last one given, so pass the
        # execroot-relative path. cicc reads the names from cudafe++'s module-id file, so
        # host stubs and device code still agree.
        "-Xcudafe",
        "--orig_src_path_name=" + src.path,
        # Else nvcc writes its intermediates to /tmp as tmpxft_<pid>_<n>-<k>_<name>.*, and gcc
        # records the name of the file it compiled as the object's STT_FILE symbol: a process
        # id in every object. Here they sit beside the object, named after it (so the
        # compile also stops writing outside its output directory).
        "--objdir-as-tempdir",
        # nvcc's switch for the random parts of the names it generates (it passes it on to
        # gcc too), seeded as Bazel seeds its C++ compiles: with the object's path, unique per
        # output. Today's sources have no such names (the objects are identical with or
        # without it); it keeps future ones (-rdc, new nvcc versions) covered.
        "-frandom-seed=" + obj.path,
        # As Bazel's C++ compiles: no build time or source mtime in host or device code
        # (SOURCE_DATE_EPOCH would cover __DATE__/__TIME__ but not __TIMESTAMP__).
        "-Xcompiler",
        "-Wno-builtin-macro-redefined",
        "-D__DATE__=\"redacted\"",
        "-D__TIMESTAMP__=\"redacted\"",
        "-D__TIME__=\"redacted\"",
    ]

# As Bazel's C++ compile actions: gcc, cicc and ptxas record $PWD, not getcwd(), as the
# compile directory in debug info (-Xcompiler -g, -lineinfo, -G), so with this the sandbox
# path (which includes the output base) stays out of objects built with debug info.
NVCC_REPRODUCIBLE_ENV = {"PWD": "/proc/self/cwd"}
