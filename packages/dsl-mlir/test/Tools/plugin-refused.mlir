// A plugin dsl-opt cannot load is an error, in either spelling of the options
// (mlir-opt would only warn and go on without it).
// RUN: %not dsl-opt --load-dialect-plugin=%t.missing.so %s 2>&1 | FileCheck %s
// RUN: %not dsl-opt -load-pass-plugin %t.missing.so %s 2>&1 | FileCheck %s
// CHECK: dsl-opt: error: dsl-mlir plugin '{{.*}}.missing.so' does not exist

func.func @f() {
  return
}
