// RUN: dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-cpu{parallel=true})' | FileCheck %s --check-prefix=PIPE

// Through the whole parallel pipeline: the row temporaries of a static softmax
// are allocas between a stack save and restore inside the task's loop over
// rows, no malloc per row.
// PIPE-LABEL: llvm.func @parallel_compute_fn
// PIPE: llvm.intr.stacksave
// PIPE: llvm.alloca
// PIPE: llvm.intr.stackrestore
func.func @softmax(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %m = dsl.max %x [1] keepdim : tensor<256x1024xf32> -> tensor<256x1xf32>
  %d = dsl.sub %x, %m : (tensor<256x1024xf32>, tensor<256x1xf32>) -> tensor<256x1024xf32>
  %e = dsl.exp %d : tensor<256x1024xf32>
  %s = dsl.sum %e [1] keepdim : tensor<256x1024xf32> -> tensor<256x1xf32>
  %y = dsl.div %e, %s : (tensor<256x1024xf32>, tensor<256x1xf32>) -> tensor<256x1024xf32>
  return %y : tensor<256x1024xf32>
}
