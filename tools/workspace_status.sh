#!/usr/bin/env bash
# Bazel's --workspace_status_command under --config=stamp (.bazelrc): the revision the build
# is made from, as a STABLE_ key (stable-status.txt; the stamping actions rerun when it
# changes). Only stamped builds run it, so an unstamped build never depends on git state.
# "-dirty" marks a tree with uncommitted changes to tracked files; "unknown" a tree that is
# not a git checkout (a source archive, say). Must not fail: Bazel would stop the build.
set -uo pipefail

if revision=$(git rev-parse HEAD 2>/dev/null); then
  if [[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
    revision+="-dirty"
  fi
else
  revision=unknown
fi
echo "STABLE_GIT_REVISION ${revision}"
