#!/usr/bin/env bash
# Every check that needs an NVIDIA GPU, in one script (run after `make setup`):
# the GPU tests of dsl-mlir and dsl-runtime (the block kernels of
# test_runtime_blocks.py among them: shared memory, barriers, atomics, warp
# shuffles, while/break), the kernels example on the nvptx backend and the
# launch-overhead benchmark. Takes a few minutes; fails if no
# GPU can be used (the reason is printed first).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
$PY - <<'PY'
from dsl_mlir import gpu
count = gpu.device_count()
print(f"GPUs: {count} {gpu.status()}")
raise SystemExit(0 if count else 1)
PY
export DSL_CACHE_DIR="$(mktemp -d)"
timeout 420 $PY -m pytest -q -m gpu -rs packages/dsl-mlir/tests packages/dsl-runtime/tests
timeout 120 $PY examples/kernels.py
timeout 120 $PY examples/block_kernels.py
timeout 120 $PY bench/launch_bench.py
