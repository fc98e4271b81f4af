// Every option of the pipelines and passes the toolkit ships is checked:
// unknown names (with the closest name), values that do not parse, ranges.
// The message is an error of the pipeline parser, never a crash or a hang.
// RUN: %not dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-cpu{vector_size=32})' 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: error: dsl-to-llvm-cpu: no option vector_size; did you mean vector-size? (options: fuse-elementwise, fuse-rows, vectorize, vector-size, matmul-tile-sizes, matmul-k-block, matmul-n-block, matmul-pack-b, parallel, num-threads, target-vector-bits, nontemporal-min-bytes, prefetch-rows, internalize-entries, boundscheck, approximate-math, avx512-exp, vectorize-thread-loops)
// RUN: %not dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-cpu{vectorize=maybe})' 2>&1 | FileCheck %s --check-prefix=BOOL
// BOOL: error: dsl-to-llvm-cpu: vectorize must be true or false, got 'maybe'
// RUN: %not dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-cpu{matmul-tile-sizes=4096,4096,4096})' 2>&1 | FileCheck %s --check-prefix=TILE
// TILE: error: dsl-to-llvm-cpu: matmul-tile-sizes must be at most 64,256,64 with M*N*K at most 16384 (a larger register tile unrolls into code that takes LLVM minutes to compile), got 4096,4096,4096
// RUN: %not dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-cpu{vector-size=2048})' 2>&1 | FileCheck %s --check-prefix=VSIZE
// VSIZE: error: dsl-to-llvm-cpu: vector-size must be at most 1024, got 2048
// RUN: %not dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-cpu{num-threads=-3})' 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: error: dsl-to-llvm-cpu: num-threads must be in 0..4096, got -3
// RUN: %not dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-nvptx{chip=})' 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: dsl-to-llvm-nvptx: chip must be an NVIDIA architecture such as sm_80 or sm_90a, got ''
// RUN: %not dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-nvptx{opt-level=9})' 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: error: dsl-to-llvm-nvptx: opt-level must be in 0..3, got 9
// RUN: %not dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-nvptx{features=+ptx80;rm})' 2>&1 | FileCheck %s --check-prefix=FEAT
// FEAT: error: dsl-to-llvm-nvptx: features must be a comma-separated list of target features such as +ptx80, got '+ptx80;rm'
// RUN: %not dsl-opt %s '--dsl-to-llvm-cpu=vector-size=x' 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: error: dsl-to-llvm-cpu: vector-size must be an integer, got 'x'
// RUN: %not dsl-opt %s --pass-pipeline='builtin.module(func.func(dsl-tile{matmul-k-block=x}))' 2>&1 | FileCheck %s --check-prefix=TILEPASS
// TILEPASS: error: dsl-tile: matmul-k-block must be an integer, got 'x'
// RUN: %not dsl-opt %s --pass-pipeline='builtin.module(func.func(dsl-vectorize{lower_vector_ops=0}))' 2>&1 | FileCheck %s --check-prefix=VECPASS
// VECPASS: error: dsl-vectorize: no option lower_vector_ops; did you mean lower-vector-ops?
// RUN: dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-cpu{vector-size=8 matmul-tile-sizes=4,16,2 matmul-k-block=0 vectorize=1 fuse-elementwise=false parallel=False num-threads=2 internalize-entries approximate-math=TRUE})' | FileCheck %s --check-prefix=OK
// OK: llvm.func @_mlir_ciface_f

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = dsl.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
