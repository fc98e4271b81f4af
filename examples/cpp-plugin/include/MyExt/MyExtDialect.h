//===- MyExtDialect.h - the `myext` dialect -----------------------*- C++ -*-===//
#ifndef MYEXT_MYEXTDIALECT_H
#define MYEXT_MYEXTDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "MyExt/MyExtOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "MyExt/MyExtOps.h.inc"

#endif // MYEXT_MYEXTDIALECT_H
