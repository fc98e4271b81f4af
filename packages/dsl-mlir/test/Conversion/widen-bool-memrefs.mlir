// RUN: dsl-opt %s --split-input-file --dsl-widen-bool-memrefs | FileCheck %s

// Memrefs of i1 become memrefs of i8 (numpy's bool: one byte per element): loads
// compare with zero, stores zero-extend, signatures (declarations too) are retyped.

// CHECK-LABEL: func.func private @ext(memref<?xi8>) -> memref<4xi8>
// CHECK-LABEL: func.func @copy(%{{.*}}: memref<?xi8>, %{{.*}}: memref<?xi8>, %{{.*}}: index)
// CHECK:         %[[V:.*]] = memref.load %{{.*}} : memref<?xi8>
// CHECK:         %[[B:.*]] = arith.cmpi ne, %[[V]], %{{.*}} : i8
// CHECK:         %[[W:.*]] = arith.extui %[[B]] : i1 to i8
// CHECK:         memref.store %[[W]], %{{.*}} : memref<?xi8>
// CHECK-NOT:   xi1>
func.func private @ext(memref<?xi1>) -> memref<4xi1>

func.func @copy(%src: memref<?xi1>, %dst: memref<?xi1>, %i: index) {
  %v = memref.load %src[%i] : memref<?xi1>
  memref.store %v, %dst[%i] : memref<?xi1>
  return
}

// -----

// The only memref of i1 is in a declaration's signature: still retyped.
// CHECK-LABEL: func.func private @only_declared(memref<8xi8>)
// CHECK-LABEL: func.func @user
// CHECK-NEXT:    return
func.func private @only_declared(memref<8xi1>)

func.func @user() {
  return
}

// -----

// No memref of i1: the module is left as it was.
// CHECK-LABEL: func.func @untouched(%{{.*}}: memref<?xf32>, %{{.*}}: index) -> f32
// CHECK-NEXT:    %[[V:.*]] = memref.load %{{.*}} : memref<?xf32>
// CHECK-NEXT:    return %[[V]] : f32
func.func @untouched(%a: memref<?xf32>, %i: index) -> f32 {
  %v = memref.load %a[%i] : memref<?xf32>
  return %v : f32
}
