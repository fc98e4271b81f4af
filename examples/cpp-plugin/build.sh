#!/usr/bin/env bash
# Configure and build the example plugin against the installed dsl-mlir:
#
#   examples/cpp-plugin/build.sh [BUILD_DIR]      (default: examples/cpp-plugin/build)
#
# PYTHON (default: python3) is the interpreter whose dsl_mlir to build against; the
# MLIR toolchain wheels dsl-mlir was built with must be installed beside it, and
# cmake and ninja on PATH or beside PYTHON (ci/requirements-dev.txt has them all).
# The last line printed is the path of the plugin.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/build}"
python="${PYTHON:-python3}"
bindir="$("$python" -c 'import os, sys; print(os.path.dirname(sys.executable))')"
PATH="$bindir:$PATH"
cmake_dir="$("$python" -m dsl_mlir.cmake_dir)"

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -G Ninja -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDslMLIR_DIR="$cmake_dir" \
  "${launcher[@]}" >/dev/null
cmake --build "$build" >&2
echo "$build/libMyExtPlugin.so"
