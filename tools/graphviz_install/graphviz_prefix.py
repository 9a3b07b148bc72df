#!/usr/bin/env python3
"""Layout of the private graphviz prefix (tools/graphviz), and its configure step.

Debian ships the `dot` program as /usr/sbin/libgvc6-config-update in libgvc6; the graphviz
package adds the /usr/bin/dot symlink and the other tools, and with them X11 and cairo.
dot picks its layout from argv[0], so it is run as `dot`. Renderers and layouts are
plugins, listed in config6a in the plugin directory, which Debian's postinst writes with
`dot -c`; in a relocated prefix GVBINDIR names that directory.

The prefix keeps only the plugins `dot -Tsvg` needs: core (svg, dot, xdot, json, ps, ...)
and dot_layout, whose libraries are all pinned. The others (cairo/pango, gd, webp, xlib,
neato_layout, visio) link libraries the lock leaves out; they are deleted before `dot -c`,
so config6a cannot register them from whatever the machine happens to have installed.

tools/bazel_install/install.py runs this as its --configure step, before it marks the
prefix complete: `graphviz_prefix.py STAGING_ROOT FINAL_PREFIX` prunes the plugins, writes
config6a and renders a graph; any failure leaves no prefix.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

LIB_DIRS = ("usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu")
PLUGIN_DIR = "usr/lib/x86_64-linux-gnu/graphviz"
DOT = "usr/sbin/libgvc6-config-update"
KEPT_PLUGINS = ("core", "dot_layout")
CONFIG = "config6a"
# The programs tools/graphviz runs: layouts other than dot need the neato_layout plugin.
PROGRAMS = {"dot": DOT}
SMOKE_GRAPH = 'digraph smoke { "a" -> "b"; }\n'


def plugin_files() -> list[str]:
    """The kept plugins, relative to the prefix (update_graphviz_lock.py checks them too)."""
    return [f"{PLUGIN_DIR}/libgvplugin_{name}.so.6" for name in KEPT_PLUGINS]


def environment(root: Path) -> dict[str, str]:
    """System glibc; every other library and every plugin from the prefix at root."""
    return {
        **os.environ,
        "LD_LIBRARY_PATH": ":".join(str(root / folder) for folder in LIB_DIRS),
        "GVBINDIR": str(root / PLUGIN_DIR),
    }


def run_dot(root: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["dot", *args], executable=root / DOT, input=stdin, capture_output=True, text=True,
        env=environment(root), check=False,
    )


def configure(root: Path) -> None:
    plugins = root / PLUGIN_DIR
    kept = tuple(f"libgvplugin_{name}.so" for name in KEPT_PLUGINS)
    for entry in plugins.iterdir():
        if entry.name == CONFIG or not entry.name.startswith(kept):
            entry.unlink()
    written = run_dot(root, "-c")
    config = plugins / CONFIG
    if written.returncode != 0 or not config.is_file():
        raise RuntimeError(f"`dot -c` wrote no {CONFIG} (exit {written.returncode}):\n"
                           f"{written.stderr}")
    registered = re.findall(r"^libgvplugin_(\w+)\.so\.6 \w+ \{$", config.read_text(), re.M)
    if sorted(registered) != sorted(KEPT_PLUGINS):
        raise RuntimeError(f"{CONFIG} registers {registered}, expected {list(KEPT_PLUGINS)}")
    rendered = run_dot(root, "-Tsvg", stdin=SMOKE_GRAPH)
    if rendered.returncode != 0 or "</svg>" not in rendered.stdout or rendered.stderr:
        raise RuntimeError(f"`dot -Tsvg` fails in the new prefix (exit "
                           f"{rendered.returncode}):\n{rendered.stderr}")


def main() -> int:
    if len(sys.argv) != 3:
        print(f"usage: {sys.argv[0]} STAGING_ROOT FINAL_PREFIX", file=sys.stderr)
        return 2
    try:
        configure(Path(sys.argv[1]).absolute())
    except (RuntimeError, OSError) as error:
        print(f"tools/graphviz: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
