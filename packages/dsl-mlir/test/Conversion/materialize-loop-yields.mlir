// RUN: dsl-opt %s --dsl-materialize-loop-yields | FileCheck %s
// (Loops that yield fresh tensors: loops.mlir.)

// A loop that already updates its carried tensor in place (a chain of
// destination-style ops rooted at the iteration argument, as tiled loops
// are) is left alone: wrapping it would be a read-after-write conflict.
// CHECK-LABEL: func.func @in_place
// CHECK-NOT: materialize_in_destination
// CHECK: return
func.func @in_place(%x: tensor<64xf32>, %v: vector<16xf32>) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %i = %c0 to %c64 step %c16 iter_args(%acc = %x) -> tensor<64xf32> {
    %s = tensor.extract_slice %acc[%i] [16] [1] : tensor<64xf32> to tensor<16xf32>
    %w = vector.transfer_write %v, %s[%c0] {in_bounds = [true]} : vector<16xf32>, tensor<16xf32>
    %u = tensor.insert_slice %w into %acc[%i] [16] [1] : tensor<16xf32> into tensor<64xf32>
    scf.yield %u : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
