"""Requires-Dist lines for the versions wheels.lock pins (@pinned_versions)."""

load("@pinned_versions//:versions.bzl", "PINNED_VERSIONS")

def pinned_requirement(name):
    """`name==version` as wheels.lock pins it, local label included (`torch==2.13.0+cpu`).

    Args:
      name: the package as written in wheels.lock.

    Returns:
      The PEP 508 requirement string.
    """
    version = PINNED_VERSIONS.get(name.lower().replace("_", "-"))
    if version == None:
        fail("%s is not pinned in //toolchains/wheels:wheels.lock" % name)
    return "%s==%s" % (name, version)
