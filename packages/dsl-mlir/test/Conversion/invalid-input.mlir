// Invalid IR is reported with its location, never an abort.
// RUN: %not dsl-opt %s --dsl-to-llvm-cpu 2>&1 | FileCheck %s
// CHECK: invalid-input.mlir:[[@LINE+3]]:{{[0-9]+}}: error: 'dsl.add' op operands tensor<4xf32> and tensor<5xf32> are not broadcast-compatible
func.func @bad(%a: tensor<4xf32>, %b: tensor<5xf32>) -> tensor<4xf32> {
  %c = arith.constant 0 : index
  %0 = dsl.add %a, %b : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
