//===- MyExtDialect.cpp - the `myext` dialect -----------------------------===//
#include "MyExt/MyExtDialect.h"

using namespace mlir;

#include "MyExt/MyExtOpsDialect.cpp.inc"

void myext::MyExtDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "MyExt/MyExtOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "MyExt/MyExtOps.cpp.inc"
