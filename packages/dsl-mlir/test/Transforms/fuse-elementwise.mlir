// RUN: dsl-opt %s --pass-pipeline='builtin.module(func.func(dsl-fuse-elementwise))' | FileCheck %s
// RUN: dsl-opt %s --pass-pipeline='builtin.module(func.func(dsl-fuse-elementwise{row-temporaries}))' | FileCheck %s --check-prefix=ROWS

// Softmax's exp(x - max) has two uses (the row sum and the division): it is
// fused into both (recomputed), so no full-size tensor is left between them.
// CHECK-LABEL: func.func @softmax_tail(
// CHECK-NOT: tensor.empty() : tensor<4x64xf32>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: math.exp
// CHECK: arith.divf
// CHECK-NOT: linalg.generic
// With row-temporaries (dsl-fuse-rows follows), the costly exp(x - max), read by
// a row reduction and a row op, is left unfused: dsl-fuse-rows stores one row of
// it, computed once instead of twice.
// ROWS-LABEL: func.func @softmax_tail(
// ROWS: linalg.generic
// ROWS: math.exp
// ROWS: linalg.generic
// ROWS-SAME: iterator_types = ["parallel", "reduction"]
// ROWS-NOT: math.exp
// ROWS: arith.divf
// ROWS-LABEL: func.func @four_uses(
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax_tail(%x: tensor<4x64xf32>, %m: tensor<4xf32>) -> tensor<4x64xf32> {
  %empty = tensor.empty() : tensor<4x64xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<4x64xf32>, tensor<4xf32>) outs(%empty : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<4x64xf32>
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<4x64xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %out = tensor.empty() : tensor<4x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s : tensor<4x64xf32>, tensor<4xf32>) outs(%out : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %q = arith.divf %a, %b : f32
    linalg.yield %q : f32
  } -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// A value with four uses is stored once, not recomputed four times.
// CHECK-LABEL: func.func @four_uses(
// CHECK: math.exp
// CHECK-NOT: math.exp
func.func @four_uses(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %empty = tensor.empty() : tensor<64xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%empty : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %a1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%e : tensor<64xf32>) outs(%empty : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %a2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%e : tensor<64xf32>) outs(%empty : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.mulf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %a3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%e : tensor<64xf32>) outs(%empty : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.subf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %a4 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%e : tensor<64xf32>) outs(%empty : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.divf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  return %a1, %a2, %a3, %a4 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// An operand of a contraction is not fused into it: the matmul reads each
// element of A once per column of B, so exp would run N times per element
// (and a packed or widened copy of an operand would be undone). A sum over
// the same value (its map uses every loop) is still fused.
// CHECK-LABEL: func.func @matmul_operand(
// CHECK: %[[E:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[E]], %{{.*}} : tensor<8x16xf32>, tensor<16x4xf32>)
// CHECK-NOT: math.exp
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<8x16xf32>)
// CHECK: math.exp
func.func @matmul_operand(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>, %c: tensor<8x4xf32>, %s: tensor<8xf32>) -> (tensor<8x4xf32>, tensor<8xf32>) {
  %empty = tensor.empty() : tensor<8x16xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%empty : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e, %w : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<8x4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<8x16xf32>) outs(%s : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.addf %o, %a : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  return %mm, %sum : tensor<8x4xf32>, tensor<8xf32>
}

// A producer with two uses is recomputed only when its body is small (at most
// 16 operations): a larger one is stored once, and each of its uses reads it.
// CHECK-LABEL: func.func @large_shared(
// CHECK: %[[E:.*]] = linalg.generic
// CHECK-COUNT-17: math.
// CHECK: linalg.generic {{.*}} ins(%[[E]] :
// CHECK-NOT: math.sin
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[E]] :
// CHECK-NOT: math.sin
// CHECK: arith.mulf
func.func @large_shared(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %empty = tensor.empty() : tensor<64xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%empty : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t0 = math.exp %a : f32
    %t1 = math.tanh %t0 : f32
    %t2 = math.sin %t1 : f32
    %t3 = math.exp %t2 : f32
    %t4 = math.tanh %t3 : f32
    %t5 = math.sin %t4 : f32
    %t6 = math.exp %t5 : f32
    %t7 = math.tanh %t6 : f32
    %t8 = math.sin %t7 : f32
    %t9 = math.exp %t8 : f32
    %t10 = math.tanh %t9 : f32
    %t11 = math.sin %t10 : f32
    %t12 = math.exp %t11 : f32
    %t13 = math.tanh %t12 : f32
    %t14 = math.sin %t13 : f32
    %t15 = math.exp %t14 : f32
    %t16 = math.tanh %t15 : f32
    linalg.yield %t16 : f32
  } -> tensor<64xf32>
  %a1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%e : tensor<64xf32>) outs(%empty : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %a2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%e : tensor<64xf32>) outs(%empty : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.mulf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  return %a1, %a2 : tensor<64xf32>, tensor<64xf32>
}
