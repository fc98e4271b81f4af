// RUN: dsl-opt %s --convert-dsl-to-linalg --split-input-file | FileCheck %s

// Broadcasting is in the indexing maps (stretched dimension -> 0, missing
// leading dimension -> absent); scalars are used inside the body.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @broadcast_scalar
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[C:.*]]: tensor<4x1xf32>, %[[R:.*]]: tensor<8xf32>, %[[S:.*]]: f32)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]] : tensor<4x8xf32>)
// CHECK: arith.subf %[[S]], %{{.*}} : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ID]]]
// CHECK-SAME: ins(%{{.*}}, %[[C]] : tensor<4x8xf32>, tensor<4x1xf32>) outs(%{{.*}} : tensor<4x8xi1>)
// CHECK: arith.cmpf ogt
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ROW]], #[[ID]]]
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %[[R]] : tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>)
// CHECK: arith.select
func.func @broadcast_scalar(%a: tensor<4x8xf32>, %col: tensor<4x1xf32>, %row: tensor<8xf32>, %s: f32) -> tensor<4x8xf32> {
  %0 = dsl.sub %s, %a : (f32, tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = dsl.cmp gt, %0, %col : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xi1>
  %1 = dsl.select %m, %0, %row : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// A dynamic result dimension takes its size from an operand dynamic there.
// CHECK-LABEL: func.func @dynamic_broadcast
// CHECK-SAME: (%{{.*}}: tensor<1x8xf32>, %[[B:.*]]: tensor<?x8xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x8xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x8xf32>
// CHECK: arith.maximumf
func.func @dynamic_broadcast(%a: tensor<1x8xf32>, %b: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = dsl.maximum %a, %b : (tensor<1x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @unary_table
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: math.rsqrt
// CHECK: math.tanh
// CHECK: math.absf
// CHECK: arith.negf
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: math.powf
// CHECK: arith.minimumf
// CHECK: math.absi
// CHECK: arith.subi
// CHECK: arith.maxsi
func.func @unary_table(%x: tensor<8xf32>, %i: tensor<8xi32>) -> (tensor<8xf32>, tensor<8xi32>) {
  %0 = dsl.exp %x : tensor<8xf32>
  %1 = dsl.log %0 : tensor<8xf32>
  %2 = dsl.sqrt %1 : tensor<8xf32>
  %3 = dsl.rsqrt %2 : tensor<8xf32>
  %4 = dsl.tanh %3 : tensor<8xf32>
  %5 = dsl.abs %4 : tensor<8xf32>
  %6 = dsl.neg %5 : tensor<8xf32>
  %7 = dsl.relu %6 : tensor<8xf32>
  %8 = dsl.pow %7, %x : tensor<8xf32>
  %9 = dsl.minimum %8, %x : tensor<8xf32>
  %10 = dsl.abs %i : tensor<8xi32>
  %11 = dsl.neg %10 : tensor<8xi32>
  %12 = dsl.relu %11 : tensor<8xi32>
  return %9, %12 : tensor<8xf32>, tensor<8xi32>
}

// -----

// CHECK-LABEL: func.func @cmp_predicates
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf une
// CHECK: arith.cmpf olt
// CHECK: arith.cmpi sle
// CHECK: arith.cmpi sgt
// CHECK: arith.cmpi sge
func.func @cmp_predicates(%x: tensor<8xf32>, %i: tensor<8xi32>) -> (tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>) {
  %0 = dsl.cmp eq, %x, %x : tensor<8xf32>
  %1 = dsl.cmp ne, %x, %x : tensor<8xf32>
  %2 = dsl.cmp lt, %x, %x : tensor<8xf32>
  %3 = dsl.cmp le, %i, %i : tensor<8xi32>
  %4 = dsl.cmp gt, %i, %i : tensor<8xi32>
  %5 = dsl.cmp ge, %i, %i : tensor<8xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>
}

// -----

// Integer division never traps: the divisor is replaced by 1 where it is 0
// (result 0) or where MIN / -1 would overflow (result MIN).
// CHECK-LABEL: func.func @div_int
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK: arith.divsi
// CHECK: arith.select
func.func @div_int(%a: tensor<8xi32>, %b: tensor<8xi32>) -> tensor<8xi32> {
  %0 = dsl.div %a, %b : tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

// CHECK-DAG: #[[BC:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @broadcast_op
// CHECK: linalg.generic {indexing_maps = [#[[BC]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
func.func @broadcast_op(%x: tensor<3x1xf32>) -> tensor<2x3x5xf32> {
  %0 = dsl.broadcast %x : tensor<3x1xf32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Reductions: filled destination without the reduced dims, reduction
// iterators, expand_shape for keepdim; f16 sums accumulate in f32 and
// mean divides in a second generic.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @mean_f16
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x8xf16>) outs(%[[F]] : tensor<4xf32>)
// CHECK: arith.extf
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: arith.truncf
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [4, 1] : tensor<4xf16> into tensor<4x1xf16>
func.func @mean_f16(%x: tensor<4x8xf16>) -> tensor<4x1xf16> {
  %0 = dsl.mean %x [1] keepdim : tensor<4x8xf16> -> tensor<4x1xf16>
  return %0 : tensor<4x1xf16>
}

// -----

// CHECK-LABEL: func.func @max_min_int
// CHECK: arith.constant -2147483648 : i32
// CHECK: arith.maxsi
// CHECK: arith.constant 0x7F800000 : f32
// CHECK: arith.minimumf
func.func @max_min_int(%i: tensor<4x8xi32>, %x: tensor<4x8xf32>) -> (tensor<8xi32>, tensor<f32>) {
  %0 = dsl.max %i [0] : tensor<4x8xi32> -> tensor<8xi32>
  %1 = dsl.min %x [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %0, %1 : tensor<8xi32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @argmax
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x8xf32>) outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xi64>)
// CHECK: linalg.index 1 : index
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: arith.select
// CHECK: tensor.expand_shape
func.func @argmax(%x: tensor<4x8xf32>) -> tensor<4x1xi64> {
  %0 = dsl.argmax %x axis 1 keepdim : tensor<4x8xf32> -> tensor<4x1xi64>
  return %0 : tensor<4x1xi64>
}

// -----

// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
// CHECK-LABEL: func.func @transpose
// CHECK: linalg.generic {indexing_maps = [#[[T]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x2x3xf32>)
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = dsl.transpose %x [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshapes
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<4x6xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2]] output_shape [2, 3, 4] : tensor<24xf32> into tensor<2x3x4xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [2, 1, 3] : tensor<2x3xf32> into tensor<2x1x3xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<2x1x3xf32> into tensor<2x3xf32>
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1] : tensor<f32> into tensor<1xf32>
func.func @reshapes(%x: tensor<4x6xf32>, %y: tensor<2x3xf32>, %z: tensor<f32>) -> (tensor<2x3x4xf32>, tensor<2x3xf32>, tensor<1xf32>) {
  %0 = dsl.reshape %x : tensor<4x6xf32> -> tensor<2x3x4xf32>
  %1 = dsl.expand_dims %y axis 1 : tensor<2x3xf32> -> tensor<2x1x3xf32>
  %2 = dsl.squeeze %1 axis 1 : tensor<2x1x3xf32> -> tensor<2x3xf32>
  %3 = dsl.expand_dims %z axis 0 : tensor<f32> -> tensor<1xf32>
  return %0, %2, %3 : tensor<2x3x4xf32>, tensor<2x3xf32>, tensor<1xf32>
}

// -----

// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x8xf32>, %[[B:.*]]: tensor<?x8xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[B]]
// CHECK: %[[N:.*]] = arith.addi %{{.*}}, %[[D]] : index
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK: %[[I:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 8] [1, 1]
// CHECK: tensor.insert_slice %[[B]] into %[[I]][2, 0] [%[[D]], 8] [1, 1]
// CHECK-NOT: arith.addi
func.func @concat(%a: tensor<2x8xf32>, %b: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = dsl.concat %a, %b axis 0 : tensor<2x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @assemble
// CHECK-SAME: (%[[D:.*]]: tensor<16x8xf32>, %[[S:.*]]: tensor<4x8xf32>, %[[I:.*]]: index, %[[J:.*]]: index)
// The run-time offsets are checked once (0 <= i <= 12, 0 <= j <= 0: IndexError
// through the error hook) and clamped to a safe window when the check fails.
// CHECK: %[[OKI:.*]] = arith.cmpi ule, %[[I]], %{{.*}} : index
// CHECK: %[[OKJ:.*]] = arith.cmpi ule, %[[J]], %{{.*}} : index
// CHECK: scf.if
// CHECK: llvm.call
// CHECK: %[[SI:.*]] = arith.select %[[OKI]], %[[I]], %{{.*}} : index
// CHECK: %[[SJ:.*]] = arith.select %[[OKJ]], %[[J]], %{{.*}} : index
// CHECK: tensor.insert_slice %[[S]] into %[[D]][%[[SI]], %[[SJ]]] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<16x8xf32>
func.func @assemble(%d: tensor<16x8xf32>, %s: tensor<4x8xf32>, %i: index, %j: index) -> tensor<16x8xf32> {
  %0 = dsl.assemble %d, %s [%i, %j] : tensor<4x8xf32> into tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @arange
// CHECK-SAME: (%[[S:.*]]: f32, %[[T:.*]]: f32)
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: arith.sitofp
// CHECK: %[[M:.*]] = arith.mulf %{{.*}}, %[[T]] : f32
// CHECK: arith.addf %[[S]], %[[M]] : f32
func.func @arange(%s: f32, %t: f32) -> tensor<16xf32> {
  %0 = dsl.arange %s, %t : f32 -> tensor<16xf32>
  return %0 : tensor<16xf32>
}
