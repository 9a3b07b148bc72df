#!/bin/bash
# Runs nvcc with a dependency file, then lists the workspace headers the compile did not
# read, for Bazel's unused_inputs_list: a later change to one of them does not rerun the
# compile (as Bazel's own C++ compiles prune their inputs with the .d file).
#
# Usage: nvcc_unused_inputs.sh NVCC HEADERS DEPS UNUSED NVCC_ARGS...
#   HEADERS  the headers that may be pruned, one path per line
#   DEPS     the dependency file nvcc writes (-MD -MF)
#   UNUSED   written: the lines of HEADERS that DEPS does not name
#
# A header counts as read when DEPS names any file of its basename: spellings such as
# "dir/../x.h" then never prune a header that was read (at worst one is kept that was not).
set -euo pipefail
set -f

nvcc=$1
headers=$2
deps=$3
unused=$4
shift 4

"$nvcc" "$@" -MD -MF "$deps"

declare -A read_basenames=()
while IFS= read -r line || [[ -n $line ]]; do
  for word in ${line%\\}; do
    read_basenames[${word##*/}]=1
  done
done <"$deps"

: >"$unused"
while IFS= read -r header || [[ -n $header ]]; do
  if [[ -z ${read_basenames[${header##*/}]:-} ]]; then
    printf '%s\n' "$header" >>"$unused"
  fi
done <"$headers"
