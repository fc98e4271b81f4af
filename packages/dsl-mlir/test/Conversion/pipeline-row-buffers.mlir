// RUN: dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-cpu{target-vector-bits=512})' --mlir-print-ir-after=buffer-loop-hoisting -o /dev/null 2>&1 | FileCheck %s
// RUN: dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-cpu{target-vector-bits=512 parallel=true})' --mlir-print-ir-after=ownership-based-buffer-deallocation -o /dev/null 2>&1 | FileCheck %s --check-prefix=PAR

// A softmax's fused row loop keeps a row of exp(x - max) in a temporary: it is
// allocated once, before the loop over rows (buffer-loop-hoisting), not once per
// row. With parallel, rows run on several threads at once: each iteration of the
// scf.forall allocates its own.
// CHECK: IR Dump After BufferLoopHoistingPass
// CHECK-LABEL: func.func @softmax
// CHECK: %[[ROW:.*]] = memref.alloc(%{{.*}}) {{.*}} : memref<1x?xf32>
// CHECK: scf.for %[[R:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK-NOT: memref.alloc({{.*}}) {{.*}} : memref<1x?xf32>
// CHECK: memref.subview %[[ROW]]
// CHECK: return

// PAR-LABEL: func.func @softmax
// PAR: scf.forall
// PAR: memref.alloc(%{{.*}}) {{.*}} : memref<1x?xf32>
// PAR: bufferization.dealloc
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %m = dsl.max %x [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %d = dsl.sub %x, %m : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  %e = dsl.exp %d : tensor<?x?xf32>
  %s = dsl.sum %e [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %y = dsl.div %e, %s : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
