"""Unpacked pinned trees reused across output bases (toolchains/tree_cache.py).

Bazel's repository cache keeps the downloaded files, but every new output base (a fresh
clone, `bazel clean --expunge`, a CI checkout) unpacks them again: @torch's wheels took
13.8 s there, pip asking its index included. A pinned repository's tree depends only on
its pins and on the code that unpacks it, so the rule keys it by exactly those and
hard-links a stored copy when there is one. The store is the directory in
$TORCH_CUDA_TREE_CACHE (tools/bazel sets it beside the repository cache); without it, the
rule fetches as before.
"""

# The attribute each repository rule that calls cached_tree has beside its own.
TREE_CACHE_ATTRS = {
    "_tree_cache": attr.label(default = "//toolchains:tree_cache.py", allow_single_file = True),
}

_STORE_ENV = "TORCH_CUDA_TREE_CACHE"
_MISS = 3

def _helper(rctx, python, what, arguments):
    result = rctx.execute([python, rctx.path(rctx.attr._tree_cache)] + arguments, quiet = True)
    if result.return_code not in (0, _MISS):
        fail("@%s: tree_cache.py %s failed (exit %d):\n%s" % (
            rctx.name,
            what,
            result.return_code,
            result.stderr,
        ))
    return result

def cached_tree(rctx, key_material, key_files, fetch):
    """Fills the repository's root with the tree `fetch` makes, or with a stored copy of it.

    Args:
      rctx: the repository context, with TREE_CACHE_ATTRS.
      key_material: strings that decide the tree (pins, options).
      key_files: labels whose contents decide the tree (locks, the rule's code, its scripts);
        reading them also makes an edit to any of them refetch the repository.
      fetch: function(rctx) that downloads and unpacks into the root and removes its
        temporary files; the caller writes BUILD.bazel afterwards.
    """

    # Not tree_cache.py itself: it copies trees, it does not make them, and an entry that a
    # change to it no longer understands fails its manifest check and is fetched again.
    contents = [rctx.read(f) for f in key_files]
    store = rctx.getenv(_STORE_ENV)
    if not store:
        fetch(rctx)
        return
    python = rctx.which("python3") or fail("@%s: python3 not on PATH: it runs tree_cache.py" % rctx.name)
    rctx.file("_tree_key", "\n".join(key_material + contents))
    key = _helper(rctx, python, "key", ["key", "_tree_key"]).stdout.strip()
    rctx.delete("_tree_key")
    if _helper(rctx, python, "restore", ["restore", store, key, "."]).return_code == 0:
        return
    fetch(rctx)
    _helper(rctx, python, "store", ["store", store, key, "."])
