// A valid plugin of the wrong kind for its option is refused with a message
// (upstream's loader aborted: "Expected<T> must be checked"), and so is a path
// that is not a regular file (dlopen of a FIFO blocks forever).
// REQUIRES: cc
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cc -shared -fPIC -DPASS -o %t/libpass.so %S/Inputs/fake-plugin.c %dsl_capi -Wl,-rpath,%dsl_libs
// RUN: %cc -shared -fPIC -DDIALECT -o %t/libdialect.so %S/Inputs/fake-plugin.c %dsl_capi -Wl,-rpath,%dsl_libs

// RUN: %not dsl-opt --load-dialect-plugin=%t/libpass.so %s 2>&1 | FileCheck %s --check-prefix=PASS-AS-DIALECT
// PASS-AS-DIALECT: dsl-opt: error: '{{.*}}libpass.so' is a pass plugin: it exports mlirGetPassPluginInfo but not mlirGetDialectPluginInfo, which --load-dialect-plugin needs; load it with --load-pass-plugin
// RUN: %not dsl-opt -load-pass-plugin %t/libdialect.so %s 2>&1 | FileCheck %s --check-prefix=DIALECT-AS-PASS
// DIALECT-AS-PASS: dsl-opt: error: '{{.*}}libdialect.so' is a dialect plugin: it exports mlirGetDialectPluginInfo but not mlirGetPassPluginInfo, which --load-pass-plugin needs; load it with --load-dialect-plugin

// Each of the right kind loads.
// RUN: dsl-opt --load-pass-plugin=%t/libpass.so --load-dialect-plugin=%t/libdialect.so %s | FileCheck %s --check-prefix=LOADED
// LOADED: func.func @f()

// RUN: mkfifo %t/fifo.so
// RUN: %not dsl-opt --load-pass-plugin=%t/fifo.so %s 2>&1 | FileCheck %s --check-prefix=FIFO
// FIFO: dsl-opt: error: dsl-mlir plugin '{{.*}}fifo.so' is not a regular file (a FIFO), not a shared library
// RUN: %not dsl-opt --load-dialect-plugin=/dev/zero %s 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: dsl-opt: error: dsl-mlir plugin '/dev/zero' is not a regular file (a character device), not a shared library
// RUN: %not dsl-opt --load-dialect-plugin=%t %s 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: dsl-opt: error: dsl-mlir plugin '{{.*}}' is a directory, not a shared library

func.func @f() {
  return
}
