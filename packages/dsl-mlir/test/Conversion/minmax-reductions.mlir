// RUN: dsl-opt %s --pass-pipeline='builtin.module(dsl-to-llvm-cpu{target-vector-bits=512})' --mlir-print-ir-after=dsl-vectorize --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s

// A row max in dsl-vectorize: the loop along the row accumulates with
// compare-and-select (one vmaxps) and notes NaNs; the exact maximumf loop runs
// again only when a NaN was seen or a lane ended at zero. The lanes are then
// reduced exactly as before.
// CHECK-LABEL: func.func @rmax
// CHECK: %[[FAST:.*]]:2 = scf.for {{.*}} -> (vector<64xf32>, vector<64xi1>) {
// CHECK: %[[X:.*]] = vector.transfer_read
// CHECK-NEXT: %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[ACC:.*]] : vector<64xf32>
// CHECK-NEXT: %[[PICK:.*]] = arith.select %[[GT]], %[[X]], %[[ACC]]
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]]
// CHECK-NEXT: %[[SEEN:.*]] = arith.ori %{{.*}}, %[[NAN]] : vector<64xi1>
// CHECK-NEXT: scf.yield %[[PICK]], %[[SEEN]]
// CHECK: %[[ZERO:.*]] = arith.cmpf oeq, %[[FAST]]#0
// CHECK: vector.reduction <or>, %[[ZERO]]
// CHECK: vector.reduction <or>, %[[FAST]]#1
// CHECK: %[[LANES:.*]] = scf.if %{{.*}} -> (vector<64xf32>) {
// CHECK: scf.for
// CHECK: arith.maximumf
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[FAST]]#0
// CHECK: vector.reduction <maximumf>, %[[LANES]]
func.func @rmax(%x: tensor<64x1024xf32>) -> tensor<64xf32> {
  %m = dsl.max %x [1] : tensor<64x1024xf32> -> tensor<64xf32>
  return %m : tensor<64xf32>
}

// The minimum: compare olt.
// CHECK-LABEL: func.func @rmin
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf uno
// CHECK: scf.if
// CHECK: arith.minimumf
func.func @rmin(%x: tensor<64x1024xf32>) -> tensor<64xf32> {
  %m = dsl.min %x [1] : tensor<64x1024xf32> -> tensor<64xf32>
  return %m : tensor<64xf32>
}
